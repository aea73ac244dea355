//! JSON Lines logs read line by line (issue 12): a dsh `session.jsonl` or a `[[cassettes]]`
//! log can hold millions of lines, and reading it whole made memory grow with the file (a
//! 2-million-line log took 2.6 GB to verify). [`LineReader`] holds one line at a time, so
//! what a command keeps is bounded by the largest line plus its own small summaries.
//!
//! The lines are the harness's `split(/\r?\n/)`: split on `\n`, a `\r` before it dropped,
//! and the text after the last `\n` is a line too (empty when the file ends with `\n`).

use std::io::{self, BufRead};

use sha1::{Digest, Sha1};

use vcr_json::Position;

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

impl Line<'_> {
    /// The line and column of a byte offset of the file that lies in this line, as
    /// [`Position::locate`] gives them in the whole file.
    pub fn locate(&self, offset: usize) -> Position {
        let at = Position::locate(self.raw, offset.saturating_sub(self.start));
        Position {
            line: self.number,
            column: at.column,
        }
    }
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

    /// The SHA-1 of every byte read (the file's `ContentHash` once all lines
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
    let mut chunks = Chunks::new(size);
    while let Some(line) = reader.next_line()? {
        chunks.push(&line, &mut each);
    }
    chunks.finish(&mut each);
    Ok(())
}

/// [`for_each_chunk`] for a caller that reads the lines itself (and does more with each):
/// the lines pushed are gathered into chunks of about `size` bytes.
#[derive(Debug)]
pub struct Chunks {
    chunk: Vec<u8>,
    size: usize,
    start: usize,
    number: usize,
}

impl Chunks {
    /// No lines yet; chunks of about `size` bytes.
    pub fn new(size: usize) -> Chunks {
        Chunks {
            chunk: Vec::new(),
            size,
            start: 0,
            number: 1,
        }
    }

    /// Adds the next line; calls `each` (chunk, offset, first line number) when the chunk is
    /// full.
    pub fn push(&mut self, line: &Line<'_>, each: &mut impl FnMut(&[u8], usize, usize)) {
        if self.chunk.is_empty() {
            (self.start, self.number) = (line.start, line.number);
        }
        self.chunk.extend_from_slice(line.raw);
        if self.chunk.len() >= self.size {
            each(&self.chunk, self.start, self.number);
            self.chunk.clear();
            self.chunk.shrink_to(self.size);
        }
    }

    /// After the last line: calls `each` with what is left.
    pub fn finish(&mut self, each: &mut impl FnMut(&[u8], usize, usize)) {
        if !self.chunk.is_empty() {
            each(&self.chunk, self.start, self.number);
            self.chunk.clear();
        }
    }
}

/// Where two byte streams first differ, fed piece by piece (a log as read and its canonical
/// form as written), keeping only the bytes one stream is ahead of the other: for
/// `format/unnormalized` and `normalize --check` on logs read line by line (dsh session logs,
/// `[[cassettes]]` logs).
#[derive(Debug, Default)]
pub struct FirstDifference {
    old: Vec<u8>,
    new: Vec<u8>,
    /// Bytes equal in both so far.
    same: usize,
    /// Line breaks among them, and where the line after the last one starts.
    breaks: usize,
    line_start: usize,
    /// Characters (UTF-8 lead bytes) of the equal bytes after the last line break.
    column: usize,
    differs: bool,
}

impl FirstDifference {
    /// Feeds the next bytes of each stream.
    pub fn feed(&mut self, old: &[u8], new: &[u8]) {
        if self.differs {
            return;
        }
        self.old.extend_from_slice(old);
        self.new.extend_from_slice(new);
        let n = self.old.len().min(self.new.len());
        let equal = self.old[..n]
            .iter()
            .zip(&self.new[..n])
            .take_while(|(a, b)| a == b)
            .count();
        self.count(equal);
        if equal < n {
            self.differs = true;
            self.old = Vec::new();
            self.new = Vec::new();
            return;
        }
        self.old.drain(..n);
        self.new.drain(..n);
    }

    fn count(&mut self, equal: usize) {
        let matched = &self.old[..equal];
        let on_line = match memchr::memrchr(b'\n', matched) {
            Some(last) => {
                self.breaks += memchr::memchr_iter(b'\n', matched).count();
                self.line_start = self.same + last + 1;
                self.column = 0;
                &matched[last + 1..]
            }
            None => matched,
        };
        self.column += on_line.iter().filter(|&&b| !is_continuation(b)).count();
        self.same += equal;
    }

    /// After the last bytes: `None` when the streams are equal, else the 1-based line and the
    /// offset (in the old stream) of the line where they first differ.
    pub fn finish(self) -> Option<(usize, usize)> {
        let differs = self.differs || self.old.len() != self.new.len();
        differs.then_some((self.breaks + 1, self.line_start))
    }

    /// After the last bytes: `None` when the streams are equal, else where they first differ:
    /// the old stream's first byte that differs (its length when the new one is longer), at
    /// the line and column [`Position::locate`] gives it in valid UTF-8.
    pub fn finish_at(self) -> Option<(usize, Position)> {
        let differs = self.differs || self.old.len() != self.new.len();
        differs.then_some((
            self.same,
            Position {
                line: self.breaks + 1,
                column: self.column + 1,
            },
        ))
    }
}

/// Whether a byte continues a UTF-8 sequence (`10xxxxxx`).
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines the whole-file reader (`dsh::session::lines`) makes, as (start, text).
    fn whole(bytes: &[u8]) -> Vec<(usize, Vec<u8>)> {
        crate::dsh::lines(bytes)
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
