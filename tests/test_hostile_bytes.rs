//! Fault plan T13, hostile bytes at the boundary: random byte strings with invalid UTF-8,
//! characters cut in the middle, NUL, ANSI escape sequences, byte order marks, bidirectional
//! overrides and zero-width characters, under random bounds, through the path bytes take into
//! what a model reads: `text_from_bytes` (what `Subprocess::output_text` gives a tool), the
//! bound and masking; then through a real child process, a real `#[tool]` and a real run. The
//! text is always valid UTF-8, cut on a character boundary within the bound and its marker,
//! each invalid sequence replaced and counted, nothing that acts on a terminal or reorders text
//! left, and nothing panics.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

use agboss::model::{Message, ScriptedModel, Turn};
use agboss::policy::MaskingPolicy;
use agboss::prelude::*;
use agboss::tool::{Subprocess, bound_text, mask_bounded, text_from_bytes};
use agboss::units::bytes;
use agboss::{Application, Workflow};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;

#[path = "faults/report.rs"]
mod reporting;

const MARKER_START: &str = "\n[result truncated: ";

/// Pieces hostile bytes are made of, beside random single bytes.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let fragments: Vec<&'static [u8]> = vec![
        "é".as_bytes(),
        "漢".as_bytes(),
        "😀".as_bytes(),
        b"\xf0\x9f\x98", // an emoji without its last byte
        b"\xe6\xbc",     // a CJK character without its last byte
        b"\xed\xa0\x80", // a UTF-16 surrogate, invalid in UTF-8
        b"\xc0\xaf",     // an overlong slash
        b"\xff\xfe",     // a UTF-16 byte order mark
        b"\0",
        b"\x1b[31;1m",
        b"\x1b]0;owned\x07",
        b"\x1b[2J\x1b[H",
        "\u{feff}".as_bytes(),
        "\u{202e}".as_bytes(),
        "\u{2066}".as_bytes(),
        "\u{200b}".as_bytes(),
        "\u{200d}".as_bytes(),
        b"plain words ",
        b"ada@example.com ",
        b"4111 1111 1111 1111 ",
        b"\n",
    ];
    prop_oneof![
        any::<u8>().prop_map(|b| vec![b]),
        proptest::sample::select(fragments).prop_map(<[u8]>::to_vec),
    ]
}

fn hostile() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(piece(), 0..80).prop_map(|pieces| pieces.concat())
}

/// What is wrong with the text a model reads of `bytes` under `bound`, if anything.
fn judge(bytes: &[u8], bound: usize, policy: &MaskingPolicy) -> Result<(), String> {
    let read = text_from_bytes(bytes);
    let lossy = String::from_utf8_lossy(bytes);
    let valid_replacements: usize = bytes
        .utf8_chunks()
        .map(|c| c.valid().matches('\u{FFFD}').count())
        .sum();
    if read.replaced + valid_replacements != lossy.matches('\u{FFFD}').count() {
        return Err(format!("replaced {} miscounted", read.replaced));
    }
    let acting = |c: char| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{feff}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if let Some(c) = read.text.chars().find(|c| acting(*c)) {
        return Err(format!("{c:?} left in the text"));
    }
    let bounded = bound_text(read.text.clone(), bytes_of(bound));
    let masked = mask_bounded(bounded.text.clone(), bounded.truncated, policy);
    for text in [&bounded.text, &masked] {
        std::str::from_utf8(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    if !bounded.truncated {
        return match bounded.text == read.text {
            true => Ok(()),
            false => Err("a text under the bound changed".into()),
        };
    }
    let kept = bounded.text.rfind(MARKER_START).ok_or("no marker")?;
    let marker = &bounded.text[kept..];
    if kept > bound
        || !read.text.is_char_boundary(kept)
        || !read.text.starts_with(&bounded.text[..kept])
    {
        return Err(format!(
            "kept {kept} bytes of {} under {bound}",
            read.text.len()
        ));
    }
    if !masked.ends_with(marker) {
        return Err("masking moved the marker".into());
    }
    Ok(())
}

fn bytes_of(bound: usize) -> agboss::units::ByteSize {
    bytes(bound as u64)
}

#[test]
fn t13_random_hostile_bytes_under_random_bounds() {
    let policy = MaskingPolicy::standard();
    let mut runner = TestRunner::new(Config {
        cases: 4000,
        failure_persistence: None,
        ..Config::default()
    });
    let (mut cases, mut panics, mut invalid, mut replaced) = (0usize, 0usize, Vec::new(), 0usize);
    let strategy = (hostile(), 1usize..400);
    for _ in 0..4000 {
        let (bytes, bound) = strategy.new_tree(&mut runner).unwrap().current();
        cases += 1;
        replaced += text_from_bytes(&bytes).replaced;
        match catch_unwind(AssertUnwindSafe(|| judge(&bytes, bound, &policy))) {
            Ok(Ok(())) => {}
            Ok(Err(why)) => invalid.push((bytes, bound, why)),
            Err(_) => panics += 1,
        }
    }
    reporting::report(
        "t13_hostile_bytes",
        &format!(
            "cases {cases}; panics {panics}; invalid outputs {}; invalid sequences replaced {replaced}",
            invalid.len()
        ),
    );
    assert_eq!(panics, 0);
    assert!(invalid.is_empty(), "{:?}", &invalid[..invalid.len().min(3)]);
}

/// The byte strings the child process prints, by case.
static CASES: OnceLock<Vec<std::path::PathBuf>> = OnceLock::new();

#[dto]
pub struct Case {
    /// Which case.
    pub case: u32,
}

/// Prints a file through `cat` in a child process and returns what it printed, as text.
#[tool(name = "print-file-tool", description = "Prints a file", read_only, max_result_size = bytes(120))]
pub struct PrintFile {
    clock: Clock,
}

impl ToolHandler for PrintFile {
    type Input = Case;
    type Output = PlainText;

    async fn run(&self, input: Case) -> Result<PlainText, ToolError> {
        let path = &CASES.get().unwrap()[input.case as usize];
        let mut command = tokio::process::Command::new("cat");
        command.arg(path).stdout(std::process::Stdio::piped());
        let output = Subprocess::spawn(command, &self.clock)?
            .output_text()
            .await?;
        Ok(PlainText::new(output.stdout.text))
    }
}

#[agent(
    name = "printer",
    description = "Prints files",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [PrintFile],
)]
pub struct Printer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t13_hostile_bytes_through_a_child_process_a_tool_and_a_run() {
    let folder = tempfile::tempdir().unwrap();
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    });
    let mut originals = Vec::new();
    let mut paths = Vec::new();
    for n in 0..60 {
        let bytes = hostile().new_tree(&mut runner).unwrap().current();
        let path = folder.path().join(format!("case-{n}"));
        std::fs::write(&path, &bytes).unwrap();
        paths.push(path);
        originals.push(bytes);
    }
    CASES.set(paths).unwrap();
    let model = ScriptedModel::new([]);
    let app = Application::builder("t13")
        .workflow(Workflow::new("desk").agent::<Printer>())
        .masking(MaskingPolicy::standard())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    for (run, cases) in (0..60u32).collect::<Vec<_>>().chunks(10).enumerate() {
        let calls: Vec<(&str, serde_json::Value)> = cases
            .iter()
            .map(|&c| ("print-file-tool", json!({ "case": c })))
            .collect();
        model.then([Turn::calls(calls), Turn::text("printed")]);
        let outcome = app
            .run("desk", "print")
            .execution_id(&format!("t13-{run}"))
            .await
            .unwrap();
        assert_eq!(outcome.text(), Some("printed"));
    }
    let mut read = 0;
    for request in model.requests() {
        for message in request.messages {
            let Message::Tool {
                content, is_error, ..
            } = message
            else {
                continue;
            };
            assert!(!is_error, "{content}");
            read += 1;
            let kept = content.rfind(MARKER_START).unwrap_or(content.len());
            assert!(kept <= 120, "kept {kept} bytes: {content:?}");
            // What the model reads is JSON text: no escaped control character, override or BOM.
            for hostile in ["\\u001b", "\\u0000", "\u{202e}", "\u{2066}", "\u{feff}"] {
                assert!(!content.contains(hostile), "{hostile:?} in {content:?}");
            }
        }
    }
    // Each case read once per request that followed it: at least one reading each.
    assert!(read >= 60, "{read} results read");
    reporting::report(
        "t13_through_a_process",
        &format!(
            "cases 60 through `cat`, a tool and 6 runs; results read {read}; invalid outputs 0; panics 0"
        ),
    );
    drop(originals);
}
