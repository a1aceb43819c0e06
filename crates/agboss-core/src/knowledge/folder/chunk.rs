//! Cutting a document into passages a search can return whole: Markdown at its headings (each
//! passage keeps the path of headings above it), prose at blank lines, code at blank lines
//! before top-level items; a piece longer than [`MAX_PASSAGE_BYTES`] is cut at paragraph
//! boundaries, then at lines, and a single longer line at a character boundary.

use std::path::Path;

/// The most bytes a passage holds, unless a single character is longer.
pub const MAX_PASSAGE_BYTES: usize = 1_500;

/// One passage of a document, before it is indexed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The headings above it, outermost first, joined with ` > `; empty when none.
    pub heading: String,
    /// Its first line, counted from 1.
    pub line: u32,
    /// Its last line.
    pub end_line: u32,
    /// Its text: the document's lines, as they are.
    pub text: String,
}

/// How a document is cut, by its file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Markdown: sections at headings, then paragraphs.
    Markdown,
    /// Prose without headings: paragraphs.
    Plain,
    /// Source code: top-level items.
    Code,
}

impl Shape {
    /// The shape of the file at `path`: Markdown for `.md` and `.markdown`, plain for `.txt`,
    /// code for anything else.
    pub fn of(path: &Path) -> Shape {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("md" | "markdown") => Shape::Markdown,
            Some("txt") => Shape::Plain,
            _ => Shape::Code,
        }
    }
}

/// The passages of `text`, a document of `shape`, in order.
pub fn chunk(text: &str, shape: Shape) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    match shape {
        Shape::Markdown => {
            for section in sections(&lines) {
                let units = blocks(&lines, section.start, section.end, false);
                pack(&lines, &units, &section.heading, &mut out);
            }
        }
        Shape::Plain => pack(&lines, &blocks(&lines, 0, lines.len(), false), "", &mut out),
        Shape::Code => pack(&lines, &blocks(&lines, 0, lines.len(), true), "", &mut out),
    }
    out
}

/// A Markdown section: lines `start..end` (0-based) under `heading`.
struct Section {
    heading: String,
    start: usize,
    end: usize,
}

/// The level and title of an ATX heading line (`## Result size`), if it is one.
fn heading_of(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    let after = &rest[level..];
    if !(1..=6).contains(&level) || !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let title = after.trim().trim_end_matches('#').trim_end();
    Some((level, title))
}

/// Whether `line` opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// The sections of a Markdown document: the text before its first heading, then one per
/// heading, each with the path of headings it sits under. A section that holds nothing but its
/// heading is left out (its title is in its subsections' heading paths).
fn sections(lines: &[&str]) -> Vec<Section> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut current = Section {
        heading: String::new(),
        start: 0,
        end: 0,
    };
    let mut in_fence = false;
    for (n, line) in lines.iter().enumerate() {
        if is_fence(line) {
            in_fence = !in_fence;
        }
        let Some((level, title)) = heading_of(line).filter(|_| !in_fence) else {
            continue;
        };
        current.end = n;
        out.push(current);
        stack.retain(|(l, _)| *l < level);
        stack.push((level, title.to_owned()));
        let path: Vec<&str> = stack.iter().map(|(_, t)| t.as_str()).collect();
        current = Section {
            heading: path.join(" > "),
            start: n,
            end: n,
        };
    }
    current.end = lines.len();
    out.push(current);
    out.retain(|s| {
        let body_start = if s.heading.is_empty() {
            s.start
        } else {
            s.start + 1
        };
        lines[body_start.min(s.end)..s.end]
            .iter()
            .any(|l| !l.trim().is_empty())
    });
    out
}

/// The units of lines `start..end` that packing keeps together, as inclusive 0-based line
/// ranges: runs of non-blank lines (a fenced block whole, blank lines and all); for code, a run
/// also goes on past blank lines until a line starts at column 0 (a new top-level item).
fn blocks(lines: &[&str], start: usize, end: usize, code: bool) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    let mut in_fence = false;
    let mut after_blank = false;
    for (n, line) in lines.iter().enumerate().take(end).skip(start) {
        let blank = line.trim().is_empty();
        if !code && is_fence(line) {
            in_fence = !in_fence;
        }
        if blank && !in_fence {
            after_blank = true;
            continue;
        }
        let top_level = !line.starts_with([' ', '\t', '}', ')', ']']);
        let starts_new = after_blank && (!code || top_level);
        match open.as_mut() {
            Some(block) if !starts_new => block.1 = n,
            _ => {
                out.extend(open.take());
                open = Some((n, n));
            }
        }
        after_blank = false;
    }
    out.extend(open);
    out
}

/// The bytes of lines `a..=b` joined with newlines.
fn span_bytes(lines: &[&str], a: usize, b: usize) -> usize {
    lines[a..=b].iter().map(|l| l.len()).sum::<usize>() + (b - a)
}

/// Packs consecutive `units` into passages of at most [`MAX_PASSAGE_BYTES`], cutting a unit
/// that is longer on its own at lines, and a longer line at a character boundary.
fn pack(lines: &[&str], units: &[(usize, usize)], heading: &str, out: &mut Vec<Chunk>) {
    let push = |out: &mut Vec<Chunk>, a: usize, b: usize| {
        out.push(Chunk {
            heading: heading.to_owned(),
            line: line_number(a),
            end_line: line_number(b),
            text: lines[a..=b].join("\n"),
        });
    };
    let mut open: Option<(usize, usize)> = None;
    for &(a, b) in units {
        if let Some((start, _)) = open
            && span_bytes(lines, start, b) <= MAX_PASSAGE_BYTES
        {
            open = Some((start, b));
            continue;
        }
        if let Some((start, end)) = open.take() {
            push(out, start, end);
        }
        if span_bytes(lines, a, b) <= MAX_PASSAGE_BYTES {
            open = Some((a, b));
            continue;
        }
        // A unit too long on its own: whole lines while they fit, a long line in pieces.
        let mut run: Option<(usize, usize)> = None;
        for n in a..=b {
            if let Some((start, _)) = run
                && span_bytes(lines, start, n) <= MAX_PASSAGE_BYTES
            {
                run = Some((start, n));
                continue;
            }
            if let Some((start, end)) = run.take() {
                push(out, start, end);
            }
            if lines[n].len() <= MAX_PASSAGE_BYTES {
                run = Some((n, n));
            } else {
                for piece in pieces(lines[n]) {
                    out.push(Chunk {
                        heading: heading.to_owned(),
                        line: line_number(n),
                        end_line: line_number(n),
                        text: piece.to_owned(),
                    });
                }
            }
        }
        if let Some((start, end)) = run {
            push(out, start, end);
        }
    }
    if let Some((start, end)) = open {
        push(out, start, end);
    }
}

/// A 0-based line index as a 1-based line number.
fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// `line` in pieces of at most [`MAX_PASSAGE_BYTES`], each cut at a character boundary.
fn pieces(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        let mut cut = rest.len().min(MAX_PASSAGE_BYTES);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut == 0 {
            // One character longer than a passage: cannot happen in UTF-8, kept for safety.
            cut = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

#[cfg(test)]
#[path = "chunk_tests.rs"]
mod tests;
