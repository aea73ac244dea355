//! JSON Lines logs read line by line (issue 12): a dsh `session.jsonl` or a `[[cassettes]]`
//! log can hold millions of lines, and reading it whole made memory grow with the file (a
//! 2-million-line log took 2.6 GB to verify). [`LineReader`] holds one line at a time, so
//! what a command keeps is bounded by the largest line plus its own small summaries.
//!
//! The lines are the harness's `split(/\r?\n/)`: split on `\n`, a `\r` before it dropped,
//! and the text after the last `\n` is a line too (empty when the file ends with `\n`).

use std::io::{self, BufRead};

use sha1::{Digest, Sha1};

/// One line of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'b> {
    /// The line without its `\n` (or `\r\n`).
    pub text: &'b [u8],
    /// The line as stored, its line break included.
    pub raw: &'b [u8],
    /// Byte offset in the file where the line starts.
    pub start: usize,
    /// 1-based line number.
    pub number: usize,
}

/// Reads a log one line at a time (see the module docs), reusing one buffer; optionally
/// hashes the bytes as they pass, so a rewrite can check that the file still holds what was
/// read without reading it whole.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    next_start: usize,
    number: usize,
    done: bool,
    hash: Option<Sha1>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader at the start of `inner`.
    pub fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            buf: Vec::new(),
            next_start: 0,
            number: 0,
            done: false,
            hash: None,
        }
    }

    /// The same reader, also hashing every byte it reads (see [`LineReader::content_hash`]).
    pub fn hashing(mut self) -> LineReader<R> {
        self.hash = Some(Sha1::new());
        self
    }

    /// The next line, or `None` after the last.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.done {
            return Ok(None);
        }
        self.buf.clear();
        let read = self.inner.read_until(b'\n', &mut self.buf)?;
        if let Some(hash) = &mut self.hash {
            hash.update(&self.buf);
        }
        let start = self.next_start;
        self.next_start += read;
        self.number += 1;
        let text = match self.buf.strip_suffix(b"\n") {
            Some(text) => text.strip_suffix(b"\r").unwrap_or(text),
            None => {
                // The text after the last line break (possibly empty) is the last line.
                self.done = true;
                self.buf.strip_suffix(b"\r").unwrap_or(&self.buf)
            }
        };
        Ok(Some(Line {
            text,
            raw: &self.buf,
            start,
            number: self.number,
        }))
    }

    /// How many bytes were read so far.
    pub fn position(&self) -> usize {
        self.next_start
    }

    /// The SHA-1 of every byte read (the file's [`crate::store::ContentHash`] once all lines
    /// are read), when the reader was made with [`LineReader::hashing`].
    pub fn content_hash(&self) -> Option<[u8; 20]> {
        self.hash.clone().map(|h| h.finalize().into())
    }
}

/// Calls `each` with whole lines of `reader` gathered into chunks of about `size` bytes (one
/// line when it is longer), each with the file offset and 1-based number of its first line:
/// for passes (the leak scan) whose cost per call is worth sharing among short lines, and
/// that never look across a line break.
pub fn for_each_chunk<R: BufRead>(
    reader: &mut LineReader<R>,
    size: usize,
    mut each: impl FnMut(&[u8], usize, usize),
) -> io::Result<()> {
    let mut chunk: Vec<u8> = Vec::new();
    let (mut start, mut number) = (0, 1);
    while let Some(line) = reader.next_line()? {
        if chunk.is_empty() {
            (start, number) = (line.start, line.number);
        }
        chunk.extend_from_slice(line.raw);
        if chunk.len() >= size {
            each(&chunk, start, number);
            chunk.clear();
            chunk.shrink_to(size);
        }
    }
    if !chunk.is_empty() {
        each(&chunk, start, number);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines the whole-file reader (`dsh::session::lines`) makes, as (start, text).
    fn whole(bytes: &[u8]) -> Vec<(usize, Vec<u8>)> {
        crate::kind::dsh::lines(bytes)
            .map(|(start, text)| (start, text.to_vec()))
            .collect()
    }

    fn streamed(bytes: &[u8]) -> Vec<(usize, Vec<u8>)> {
        let mut reader = LineReader::new(bytes);
        let mut out = Vec::new();
        let mut raw = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((line.start, line.text.to_vec()));
            raw.extend_from_slice(line.raw);
            assert_eq!(line.number, out.len());
        }
        assert_eq!(raw, bytes, "the raw lines are the file");
        out
    }

    #[test]
    fn lines_are_split_as_the_whole_file_reader_splits_them() {
        // Issue 12: the streamed reader must cut exactly where the whole-file reader cut.
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\r\nb",
            "a\r\n\r\n",
            "\r",
            "a\rb\n\n\nc",
            "\u{feff}{}\n{}",
            "x\r\r\n",
        ] {
            assert_eq!(
                streamed(text.as_bytes()),
                whole(text.as_bytes()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn chunks_hold_whole_lines_and_the_hash_is_the_files() {
        let text = b"one\ntwo\r\nthree\n\nfour";
        let mut reader = LineReader::new(&text[..]).hashing();
        let mut seen = Vec::new();
        for_each_chunk(&mut reader, 5, |chunk, start, number| {
            assert_eq!(&text[start..start + chunk.len()], chunk);
            assert!(start == 0 || text[start - 1] == b'\n');
            seen.push(number);
        })
        .unwrap();
        assert_eq!(seen, [1, 3, 4]);
        let want: [u8; 20] = Sha1::digest(text).into();
        assert_eq!(reader.content_hash(), Some(want));
        assert_eq!(reader.position(), text.len());
    }
}
