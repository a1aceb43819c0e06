//! Tests of chunking: headings kept, lines counted, long pieces cut within bounds.

use super::*;

fn guide() -> String {
    [
        "Intro before any heading.",       // 1
        "",                                // 2
        "# Tools",                         // 3
        "",                                // 4
        "Tools are structs.",              // 5
        "",                                // 6
        "## Result size",                  // 7
        "",                                // 8
        "Results are bounded.",            // 9
        "```",                             // 10
        "# not a heading",                 // 11
        "```",                             // 12
        "### Ceilings ###",                // 13
        "A ceiling refuses larger texts.", // 14
        "## Timeouts",                     // 15
        "Every call has one.",             // 16
        "# Empty",                         // 17
        "## Child",                        // 18
        "Under an empty parent.",          // 19
    ]
    .join("\n")
}

#[test]
fn markdown_passages_keep_their_heading_path_and_lines() {
    let chunks = chunk(&guide(), Shape::Markdown);
    let seen: Vec<(&str, u32, u32)> = chunks
        .iter()
        .map(|c| (c.heading.as_str(), c.line, c.end_line))
        .collect();
    assert_eq!(
        seen,
        [
            ("", 1, 1),
            ("Tools", 3, 5),
            ("Tools > Result size", 7, 12),
            ("Tools > Result size > Ceilings", 13, 14),
            ("Tools > Timeouts", 15, 16),
            ("Empty > Child", 18, 19),
        ]
    );
    assert_eq!(chunks[2].text.lines().nth(4), Some("# not a heading"));
    assert!(chunks[1].text.starts_with("# Tools\n\nTools are structs."));
}

#[test]
fn a_long_section_is_cut_at_paragraphs_within_the_bound() {
    let paragraph = "word ".repeat(100); // 500 bytes with its trailing space
    let mut text = String::from("# Long\n");
    for _ in 0..6 {
        text.push('\n');
        text.push_str(paragraph.trim_end());
        text.push('\n');
    }
    let chunks = chunk(&text, Shape::Markdown);
    assert!(chunks.len() >= 3, "{chunks:?}");
    for c in &chunks {
        assert!(c.text.len() <= MAX_PASSAGE_BYTES, "{}", c.text.len());
        assert_eq!(c.heading, "Long");
        assert!(!c.text.starts_with('\n') && !c.text.ends_with('\n'));
    }
    // Paragraph boundaries: every passage ends at the end of a paragraph.
    assert!(chunks.iter().all(|c| c.text.ends_with("word")));
    assert_eq!(chunks[0].line, 1);
    assert_eq!(chunks.last().map(|c| c.end_line), Some(13));
}

#[test]
fn a_long_line_is_cut_at_character_boundaries() {
    let line = "é".repeat(2_000); // 4,000 bytes, two per character
    let chunks = chunk(&line, Shape::Plain);
    assert_eq!(chunks.len(), 3);
    for c in &chunks {
        assert!(c.text.len() <= MAX_PASSAGE_BYTES);
        assert_eq!((c.line, c.end_line), (1, 1));
    }
    let joined: String = chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(joined, line);
}

#[test]
fn code_splits_between_top_level_items_and_keeps_bodies_whole() {
    let mut text = String::from("use std::fmt;\n\n");
    for n in 0..40 {
        text.push_str(&format!(
            "/// Item {n}.\nfn item_{n}() {{\n    let a = {n};\n\n    println!(\"{{a}}\");\n}}\n\n"
        ));
    }
    let chunks = chunk(&text, Shape::Code);
    assert!(chunks.len() > 1);
    for c in &chunks {
        assert!(c.text.len() <= MAX_PASSAGE_BYTES);
        assert!(c.heading.is_empty());
        // Never cut inside a function: every passage after the first starts at a doc comment.
        let first = c.text.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("///") || first.starts_with("use"),
            "{first}"
        );
        assert!(c.text.ends_with('}') || c.text.ends_with(';'));
    }
    let second = &chunks[1];
    assert_eq!(
        text.lines().nth(second.line as usize - 1),
        second.text.lines().next()
    );
}

#[test]
fn plain_text_has_no_headings() {
    let chunks = chunk("# not markdown\n\nsecond paragraph\n", Shape::Plain);
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].heading, "");
    assert_eq!((chunks[0].line, chunks[0].end_line), (1, 3));
    assert_eq!(Shape::of(Path::new("a/b.MD")), Shape::Markdown);
    assert_eq!(Shape::of(Path::new("a/b.txt")), Shape::Plain);
    assert_eq!(Shape::of(Path::new("a/b.rs")), Shape::Code);
}
