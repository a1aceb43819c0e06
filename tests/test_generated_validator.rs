//! The validator `#[dto]` generates, held against the schema's checker: for every generated
//! argument text, valid or not, a tool whose DTOs are checked by the generated code and a twin
//! whose identical DTOs are checked by the schema alone give the model the same text, and the
//! generated path accepts exactly what `jsonschema` (on its own, over a `serde_json::Value`)
//! accepts and serde reads.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use agboss::__private::Tool;
use agboss::__private::conform::{Conforms, DEPTH, read_checked};
use agboss::__private::schemars::JsonSchema;
use agboss::__private::serde::{Deserialize, Serialize};
use agboss::prelude::*;
use agboss::testing::test_tool;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Value, json};

/// One job of a batch.
#[dto]
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Where.
    #[schemars(url)]
    pub url: String,
    /// How often to retry.
    #[schemars(range(min = 1, max = 10))]
    pub retries: u8,
    /// Labels.
    pub tags: Vec<String>,
    /// A remark.
    pub note: Option<String>,
}

/// What kind of batch.
#[dto]
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Plain,
    Tagged(String),
    Pair(u8, bool),
    Shaped { size: u32 },
}

/// A batch, with a rule of each kind the generated code checks, written once for two types:
/// `Batch` (a `#[dto]`, checked by the generated validator) and `SchemaOnly` (the same fields
/// under plain derives, so no generated validator: the schema's checker judges it).
macro_rules! batch {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        pub struct $name {
            /// The jobs.
            #[schemars(length(min = 1, max = 4))]
            pub jobs: Vec<Job>,
            /// A label like `night-7`.
            #[schemars(regex(pattern = r"^[a-z]+-\d+$"))]
            pub label: String,
            /// Its kind.
            pub kind: Kind,
            /// Who to tell.
            #[schemars(email)]
            pub owner: Option<String>,
            /// Weights by name.
            pub weights: HashMap<String, f64>,
            /// A ratio.
            #[schemars(range(min = -1.5, max = 2.5))]
            pub ratio: f64,
            /// A name of two characters or more.
            #[schemars(length(min = 2))]
            pub name: String,
            /// Counts, in order.
            #[serde(default)]
            pub counts: BTreeMap<String, i32>,
        }

        impl $name {
            /// What a run makes of its batch: rules of the output broken on some inputs
            /// (retries doubled past 10, a ratio doubled past 2.5, a NaN weight, which is
            /// written as `null`).
            fn answer(mut self) -> Self {
                for job in &mut self.jobs {
                    job.retries = job.retries.saturating_mul(2);
                }
                self.ratio *= 2.0;
                if self.weights.contains_key("nan") {
                    self.weights.insert("nan".into(), f64::NAN);
                }
                self
            }
        }
    };
}

batch!(
    #[dto]
    #[derive(Debug, Clone, PartialEq)]
    Batch
);

batch!(
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(crate = "agboss::__private::serde", deny_unknown_fields)]
    #[schemars(crate = "agboss::__private::schemars")]
    SchemaOnly
);

#[tool(
    name = "generated-tool",
    description = "Checks with the generated validator"
)]
pub struct Generated;

impl ToolHandler for Generated {
    type Input = Batch;
    type Output = Batch;

    async fn run(&self, input: Batch) -> Result<Batch, ToolError> {
        Ok(input.answer())
    }
}

#[tool(
    name = "schema-only-tool",
    description = "Checks with the schema alone"
)]
pub struct Checked;

impl ToolHandler for Checked {
    type Input = SchemaOnly;
    type Output = SchemaOnly;

    async fn run(&self, input: SchemaOnly) -> Result<SchemaOnly, ToolError> {
        Ok(input.answer())
    }
}

/// `jsonschema` alone, on a `serde_json::Value`: the oracle the generated path is held to.
fn oracle(arguments: &Value) -> bool {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let schema = agboss::__private::tool_input_schema::<Generated>();
            jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .expect("the schema compiles")
        })
        .is_valid(arguments)
}

// Each part is mostly valid (weight 20 against 1 for each wrong form), so that whole batches
// are accepted often enough to compare what both paths read.

fn url() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => prop_oneof![
            Just(json!("https://a.example/x")),
            Just(json!("http://[::1]:8080/p?q=1#f")),
            Just(json!("mailto:x@y.example")),
        ],
        1 => Just(json!("b.example/x")),
        1 => Just(json!("")),
        1 => Just(json!("https://exa mple.com")),
        1 => "[a-z:/.]{0,10}".prop_map(Value::from),
        1 => Just(json!(7)),
    ]
}

fn retries() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => (1i64..=10).prop_map(Value::from),
        1 => prop_oneof![Just(json!(0)), Just(json!(11)), Just(json!(-1))],
        1 => Just(json!(3.0)),
        1 => Just(json!(1.5)),
        1 => Just(json!(256)),
        1 => Just(json!("3")),
        1 => Just(Value::Null),
    ]
}

fn ratio() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => (-1.5f64..=2.5).prop_map(Value::from),
        2 => Just(json!(-1.5)),
        2 => Just(json!(2.5)),
        2 => Just(json!(2)),
        1 => (2.5f64..4.0).prop_map(Value::from),
        1 => Just(json!(-2)),
        1 => Just(json!(1e300)),
        1 => Just(json!("1")),
    ]
}

fn text(pattern: &'static str) -> impl Strategy<Value = Value> {
    pattern.prop_map(Value::from)
}

fn label() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => text("[a-z]{1,3}-[0-9]{1,2}"),
        2 => text("[a-z]{0,3}-[0-9]{0,2}"),
        // Digits of another script: `\d` is ASCII in JSON Schema's regular expressions.
        1 => Just(json!("abc-\u{0661}\u{0662}")),
        1 => Just(json!("night-7\n")),
        1 => Just(json!("x-1 ")),
        1 => Just(json!(["a-1"])),
    ]
}

fn owner() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        10 => Just(None),
        5 => Just(Some(Value::Null)),
        5 => Just(Some(json!("ops@example.com"))),
        1 => Just(Some(json!("not an email"))),
        1 => Just(Some(json!("@example.com"))),
        1 => Just(Some(json!(5))),
    ]
}

fn kind() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => prop_oneof![
            Just(json!("Plain")),
            Just(json!({"Tagged": "x"})),
            Just(json!({"Pair": [1, true]})),
            Just(json!({"Shaped": {"size": 3}})),
        ],
        1 => Just(json!({"Plain": null})),
        1 => Just(json!({"Tagged": 1})),
        1 => Just(json!({"Tagged": "x", "Plain": null})),
        1 => Just(json!({"Pair": [300, true]})),
        1 => Just(json!({"Pair": [1]})),
        1 => Just(json!({"Shaped": {"size": -1}})),
        1 => Just(json!({"Shaped": [3]})),
        1 => Just(json!({"Shaped": {"size": 3, "more": 1}})),
        1 => Just(json!("Other")),
        1 => Just(json!(["Tagged", "x"])),
        1 => Just(json!({})),
    ]
}

fn job() -> impl Strategy<Value = Value> {
    let fields = || {
        (
            url(),
            retries(),
            prop::collection::vec(text("[a-z]{0,2}"), 0..3),
            owner(),
        )
    };
    prop_oneof![
        40 => fields().prop_map(|(url, retries, tags, note)| {
            let mut job = json!({"url": url, "retries": retries, "tags": tags});
            if let Some(note) = note {
                job["note"] = note;
            }
            job
        }),
        // A struct as an array of its fields, which serde alone would read.
        1 => fields().prop_map(|(url, retries, tags, _)| json!([url, retries, tags, null])),
        1 => Just(json!({"url": "https://a.example", "retries": 1, "tags": [], "extra": true})),
        1 => Just(json!({"url": "https://a.example", "tags": []})),
    ]
}

fn weights() -> impl Strategy<Value = Value> {
    let value = prop_oneof![
        20 => (-5.0f64..5.0).prop_map(Value::from),
        10 => (-5i64..5).prop_map(Value::from),
        1 => Just(json!("1")),
        1 => Just(Value::Null),
    ];
    prop::collection::btree_map("[a-c]|nan", value, 0..3)
        .prop_map(|map| Value::Object(map.into_iter().collect()))
}

fn name() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => text("[a-zé日]{2,4}"),
        2 => text("[a-zé日]{0,1}"),
        1 => Just(json!(12)),
    ]
}

fn counts() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        10 => Just(None),
        5 => Just(Some(json!({}))),
        5 => Just(Some(json!({"a": 1, "b": -2}))),
        1 => Just(Some(json!({"a": 3_000_000_000u64}))),
        1 => Just(Some(json!({"a": 1.0}))),
        1 => Just(Some(json!([1]))),
    ]
}

/// Arguments near a batch's shape: mostly well-formed, each part sometimes wrong, sometimes a
/// member missing or one too many, sometimes something else entirely.
fn arguments() -> impl Strategy<Value = Value> {
    let batch = (
        prop_oneof![
            20 => prop::collection::vec(job(), 1..=4),
            1 => Just(Vec::new()),
            1 => prop::collection::vec(job(), 5..=6),
        ],
        label(),
        kind(),
        owner(),
        weights(),
        ratio(),
        name(),
        counts(),
        (0usize..60, any::<bool>()),
    )
        .prop_map(
            |(jobs, label, kind, owner, weights, ratio, name, counts, (drop, extra))| {
                let mut batch = json!({
                    "jobs": jobs, "label": label, "kind": kind,
                    "weights": weights, "ratio": ratio, "name": name,
                });
                if let Some(owner) = owner {
                    batch["owner"] = owner;
                }
                if let Some(counts) = counts {
                    batch["counts"] = counts;
                }
                let keys: Vec<String> = batch.as_object().unwrap().keys().cloned().collect();
                if let Some(key) = drop.checked_sub(52).and_then(|i| keys.get(i)) {
                    batch.as_object_mut().unwrap().remove(key);
                }
                if extra && drop % 10 == 0 {
                    batch["unknown"] = json!(1);
                }
                batch
            },
        );
    prop_oneof![
        12 => batch,
        1 => Just(json!([])),
        1 => Just(json!(null)),
        1 => Just(json!("text")),
    ]
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// The generated path accepts exactly what the schema accepts and serde reads, reads the
    /// same value, and the model reads the same text from both tools, refusals included.
    #[test]
    fn the_generated_validator_agrees_with_the_schema(arguments in arguments()) {
        let text = arguments.to_string();
        let generated = read_checked::<Batch>(&text);
        let schema_holds = oracle(&arguments);
        let serde_reads = serde_json::from_str::<Batch>(&text).ok();
        match &generated {
            Some(batch) => {
                prop_assert!(schema_holds, "generated accepted what the schema refuses: {text}");
                prop_assert_eq!(Some(batch), serde_reads.as_ref());
            }
            None => prop_assert!(
                !(schema_holds && serde_reads.is_some()),
                "generated refused what the schema accepts and serde reads: {text}"
            ),
        }
        let (fast, slow) = runtime().block_on(async {
            let fast = test_tool::<Generated>().invoke(&text).await;
            let slow = test_tool::<Checked>().invoke(&text).await;
            (fast, slow)
        });
        // A `HashMap`'s members come in an order of its own, so answers are compared as JSON.
        let as_json = |content: &str| serde_json::from_str::<Value>(content).ok();
        match (as_json(&fast.content), as_json(&slow.content)) {
            (Some(fast), Some(slow)) => prop_assert_eq!(fast, slow, "{}", text),
            _ => prop_assert_eq!(&fast.content, &slow.content, "{}", text),
        }
        prop_assert_eq!(fast.failure.is_some(), slow.failure.is_some());
    }
}

/// The generated inputs reach both sides of every rule: without this, agreement could come from
/// inputs all refused for one reason.
#[test]
fn the_generated_inputs_are_accepted_and_refused_both() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..3000 {
        let arguments = arguments().new_tree(&mut runner).unwrap().current();
        match read_checked::<Batch>(&arguments.to_string()) {
            Some(_) => accepted += 1,
            None => refused += 1,
        }
    }
    eprintln!("generated inputs: {accepted} accepted, {refused} refused");
    assert!(accepted >= 100, "{accepted} accepted");
    assert!(refused >= 100, "{refused} refused");
}

/// Which types the generated validator covers: a `#[dto]` of standard types and other such DTOs;
/// not one whose schema says what it does not model, nor a recursive or generic one, nor a
/// foreign type.
#[test]
fn exact_types_are_the_ones_the_generated_code_covers() {
    #[dto]
    struct Aliased {
        #[serde(alias = "n")]
        name: String,
    }
    #[dto]
    struct Tree {
        children: Vec<Tree>,
    }
    #[dto]
    struct Page<T> {
        items: Vec<T>,
    }
    #[dto]
    struct Waits {
        after: std::time::Duration,
    }
    #[dto]
    struct Computed {
        #[schemars(range(min = LIMIT))]
        count: u32,
    }
    const LIMIT: u32 = 3;
    #[dto]
    struct Flat {
        #[serde(flatten)]
        inner: HashMap<String, String>,
    }

    assert!(Batch::exact(DEPTH));
    assert!(Job::exact(DEPTH) && Kind::exact(DEPTH));
    assert!(!Aliased::exact(DEPTH));
    assert!(!Tree::exact(DEPTH));
    assert!(!Page::<String>::exact(DEPTH));
    assert!(!Waits::exact(DEPTH));
    assert!(!Computed::exact(DEPTH));
    assert!(!Flat::exact(DEPTH));
    let (generated, schema_only) = (Generated::checks(), Checked::checks());
    assert!(generated.covers_input() && generated.covers_output());
    assert!(!schema_only.covers_input() && !schema_only.covers_output());
}
