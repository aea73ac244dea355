// Reads a Markdown file with marked, a CommonMark/GFM parser (tests/action.rs):
//
//   node markdown.js FILE > STRUCTURE.json
//
// Prints what the document is made of, as the parser sees it: its length in characters, its
// headings, tables (header cells, row count), list items (their text, nested ones too), the
// raw HTML it holds (the `<details>` and `<summary>` tags, counted), and the HTML it renders
// to, so that a test can tell a summary renders as meant (a table, not a paragraph of pipes;
// collapsed sections that close; text from a cassette shown, not rendered).
"use strict";

const fs = require("fs");
const { marked } = require("marked");

const text = fs.readFileSync(process.argv[2], "utf8");
const tokens = marked.lexer(text);
const out = {
  characters: [...text].length,
  headings: [],
  tables: [],
  items: [],
  html: [],
  rendered: marked.parser(tokens),
};

function walk(list, depth) {
  for (const token of list) {
    switch (token.type) {
      case "heading":
        out.headings.push({ depth: token.depth, text: token.text });
        break;
      case "table":
        out.tables.push({
          header: token.header.map((cell) => cell.text),
          rows: token.rows.length,
        });
        break;
      case "list":
        for (const item of token.items) {
          out.items.push({ depth, text: item.text.split("\n")[0] });
          walk(item.tokens || [], depth + 1);
        }
        break;
      case "html":
        out.html.push(token.raw.trim());
        break;
      default:
        if (token.tokens) walk(token.tokens, depth);
    }
  }
}
walk(tokens, 0);
const count = (re) => (out.rendered.match(re) || []).length;
out.details = { open: count(/<details>/g), close: count(/<\/details>/g) };
out.summaries = (out.rendered.match(/<summary>[^<]*<\/summary>/g) || []).map((s) =>
  s.replace(/<\/?summary>/g, "")
);
process.stdout.write(JSON.stringify(out, null, 2));
