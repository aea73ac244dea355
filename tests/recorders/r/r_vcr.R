# R's vcr (with webmockr) and crul: records (`record = "once"`) or replays (`record = "none"`)
# the scenario, sent with crul's HttpClient, into one cassette,
# `<CASSETTE_DIR>/<scenario name>.yml`, with `use_cassette`. Every answer is checked against
# what the scenario expects (see tests/common/scenario.rs).
#
# Usage: Rscript r_vcr.R record|replay SCENARIO.json CASSETTE_DIR

suppressPackageStartupMessages({
  library(jsonlite)
  library(crul)
  library(vcr)
})

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 3) stop("usage: Rscript r_vcr.R record|replay SCENARIO.json CASSETTE_DIR")
mode <- args[[1]]
scenario <- fromJSON(args[[2]], simplifyVector = FALSE)
cassette_dir <- args[[3]]
record <- switch(mode, record = "once", replay = "none", stop("unknown mode ", mode))

invisible(vcr_configure(dir = cassette_dir))

# The differences between an answer and what `r` expects.
check <- function(r, response) {
  expect <- r$expect
  problems <- character()
  if (response$status_code != expect$status) {
    problems <- c(problems, sprintf("%s: status %s, expected %s", r$name, response$status_code, expect$status))
  }
  headers <- response$response_headers
  names(headers) <- tolower(names(headers))
  for (name in names(expect$headers)) {
    got <- headers[[name]]
    if (is.null(got) || !identical(got, expect$headers[[name]])) {
      problems <- c(problems, sprintf("%s: header %s is %s, expected %s", r$name, name,
        if (is.null(got)) "missing" else deparse(got), deparse(expect$headers[[name]])))
    }
  }
  # curl undoes a gzip body it asked for; one it did not is still gzip.
  content <- response$content
  if (length(content) >= 2 && content[[1]] == as.raw(0x1f) && content[[2]] == as.raw(0x8b)) {
    content <- memDecompress(content, type = "gzip")
  }
  body <- rawToChar(content)
  Encoding(body) <- "UTF-8"
  if (!identical(body, expect$body)) {
    problems <- c(problems, sprintf("%s: body %s, expected %s", r$name, deparse(body), deparse(expect$body)))
  }
  problems
}

problems <- character()
invisible(use_cassette(scenario$name, record = record, {
  for (r in scenario$requests) {
    headers <- setNames(lapply(r$headers, `[[`, 2), vapply(r$headers, `[[`, "", 1))
    client <- HttpClient$new(url = paste0(scenario$base, r$target), headers = headers)
    problems <- c(problems, tryCatch(
      check(r, client$verb(r$method, body = r$body, encode = "raw")),
      error = function(e) sprintf("%s: %s", r$name, conditionMessage(e))
    ))
  }
}))

for (p in problems) message(p)
quit(status = if (length(problems)) 1 else 0)
