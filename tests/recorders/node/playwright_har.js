// Playwright records a HAR with its bodies in `_file` sidecars (`recordHar` with
// `content: "attach"`), and replays it with `routeFromHAR`; tests/http_playwright.rs drives it.
//
//   node playwright_har.js record HAR TOKEN   serves a JSON body holding TOKEN on 127.0.0.1,
//                                             opens it in Chromium with an Authorization
//                                             header, records HAR; prints the body
//   node playwright_har.js replay HAR         no server: opens the recorded URL with
//                                             routeFromHAR(HAR, notFound: "abort"); prints
//                                             the body the HAR answers with
//
// Chromium is the system's (CHROMIUM, default /usr/bin/chromium): Playwright's own browser
// downloads are not reachable everywhere the tests run.
"use strict";

const fs = require("fs");
const http = require("http");
const { chromium } = require("playwright-core");

async function main() {
  const [mode, har, token] = process.argv.slice(2);
  let server;
  let url;
  if (mode === "record") {
    server = http.createServer((req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ user: "dana", token, ok: true }));
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${server.address().port}/api/session`;
  } else if (mode === "replay") {
    const log = JSON.parse(fs.readFileSync(har, "utf8")).log;
    url = log.entries.find((e) => e.request.url.includes("/api/")).request.url;
  } else {
    throw new Error("usage: playwright_har.js record HAR TOKEN | replay HAR");
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    // As root in a container: no sandbox, and no reliance on a small /dev/shm.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  try {
    const context =
      mode === "record"
        ? await browser.newContext({ recordHar: { path: har, content: "attach" } })
        : await browser.newContext();
    if (mode === "record") {
      await context.setExtraHTTPHeaders({ Authorization: `Bearer ${token}` });
    } else {
      await context.routeFromHAR(har, { notFound: "abort" });
    }
    const page = await context.newPage();
    const response = await page.goto(url);
    process.stdout.write(`${await response.text()}\n`);
    await context.close();
  } finally {
    await browser.close();
    if (server) server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
