//! JSON Schemas of a tool's DTOs and their validators, compiled once.

use std::borrow::Cow;

use jsonschema::Validator;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::allowlist::CompiledAllowLists;
use super::conform::strict;
use super::tape::{Tape, TapeError, TapeJson, fill_from_serialize, fill_from_text, with_tape};
use crate::tool::{AllowList, Issues, SchemaError};

/// The JSON Schema (draft 2020-12) a model reads for the input DTO `T`.
pub fn input_schema_of<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The JSON Schema (draft 2020-12) of the output DTO `T`, as it serializes.
pub fn output_schema_of<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// A tool's schemas with their compiled validators (formats checked).
pub struct CompiledSchemas {
    pub(crate) input: SchemaCheck,
    pub(crate) output: SchemaCheck,
}

/// One schema and its validator, which checks values written on a [`Tape`], and for a tool's
/// input its allowlists, judged once the schema holds.
pub(crate) struct SchemaCheck {
    schema: Value,
    validator: Validator<TapeJson>,
    allow: CompiledAllowLists,
}

impl CompiledSchemas {
    /// The schemas `input` and `output` of tool `tool`, compiled, with the allowlists `allow`
    /// of its input's fields.
    pub(crate) fn compile(
        tool: &'static str,
        input: Value,
        output: Value,
        allow: &[AllowList],
    ) -> Result<CompiledSchemas, SchemaError> {
        let error = |which, reason: String| SchemaError {
            tool,
            which,
            reason,
        };
        if input.get("type").and_then(Value::as_str) != Some("object") {
            return Err(error(
                "input",
                "must describe a JSON object (a struct with named fields): models send arguments as an object".into(),
            ));
        }
        let allow = CompiledAllowLists::compile(allow, &input).map_err(|reason| {
            error(
                "input",
                format!("has an allowlist that does not fit: {reason}"),
            )
        })?;
        let mut input = SchemaCheck::compile(input)
            .map_err(|e| error("input", format!("does not compile: {e}")))?;
        input.allow = allow;
        Ok(CompiledSchemas {
            input,
            output: SchemaCheck::compile(output)
                .map_err(|e| error("output", format!("does not compile: {e}")))?,
        })
    }

    /// The input schema.
    pub fn input(&self) -> &Value {
        &self.input.schema
    }

    /// The output schema.
    pub fn output(&self) -> &Value {
        &self.output.schema
    }
}

impl SchemaCheck {
    /// `schema` with its validator (formats checked).
    pub(crate) fn compile(
        schema: Value,
    ) -> Result<SchemaCheck, jsonschema::ValidationError<'static>> {
        let validator = jsonschema::options_for::<TapeJson>()
            .should_validate_formats(true)
            .build(&schema)?;
        Ok(SchemaCheck {
            schema,
            validator,
            allow: CompiledAllowLists::default(),
        })
    }

    /// Checks the document on `tape`; on a violation, every issue, named by path.
    /// Step 1 of the contract, for a tool's input and an agent's answer alike: JSON text to a
    /// validated `I`. Empty arguments mean `{}` (some providers send nothing for a tool
    /// without parameters). Arguments the schema refuses are checked once more without the
    /// `null`s they give optional properties (what OpenAI's strict mode sends for a property
    /// left out), and read that way if they hold then.
    ///
    /// The text is validated on a pooled tape, then parsed into `I`; the second parse costs
    /// less than building and dropping a `serde_json::Value`.
    ///
    /// Only the last parse depends on `I`: the rest is [`accepted`](Self::accepted), compiled
    /// once for every type rather than once per tool.
    pub(crate) fn decode<I: DeserializeOwned>(&self, arguments: &str) -> Result<I, Issues> {
        let text = self.accepted(arguments)?;
        read_typed(&text)
    }

    /// Step 1 by the generated validator (see [`conform`](super::conform)): the arguments
    /// read once by the strict reader and `check` asked of the value; anything either refuses
    /// (empty arguments, a `null` serde does not take, a value out of range) is decided by
    /// [`decode`](Self::decode), so what the model reads of a refusal is the schema checker's.
    /// For a type whose `Conforms::exact` holds, and an input without allowlists.
    pub(crate) fn decode_checked<I: DeserializeOwned>(
        &self,
        arguments: &str,
        check: fn(&I) -> bool,
    ) -> Result<I, Issues> {
        match strict::read::<I>(arguments) {
            Ok(input) if check(&input) => Ok(input),
            _ => self.decode(arguments),
        }
    }

    /// Whether step 1 checks the schema alone: no field has an allowlist, which the generated
    /// validator does not know.
    pub(crate) fn is_plain(&self) -> bool {
        self.allow.is_empty()
    }

    /// What step 1 checks before reading the arguments as a type: the text (`{}` for empty
    /// arguments, without the `null`s of optional properties if they were refused with them)
    /// that holds, or every issue of the arguments as sent.
    pub(crate) fn accepted<'t>(&self, arguments: &'t str) -> Result<Cow<'t, str>, Issues> {
        let text = if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        };
        let mut refused = None;
        with_tape(|tape| {
            // Positions in a parse error count in the text the model sent, so it is not
            // trimmed.
            fill_from_text(tape, text).map_err(|e| Issues::malformed(&e))?;
            refused = self.check(tape).err();
            Ok::<(), Issues>(())
        })?;
        match refused {
            None => Ok(Cow::Borrowed(text)),
            // A `null` for an optional property (what a model in OpenAI's strict mode writes
            // for a property it leaves out) is read as absent, if the arguments hold then.
            Some(issues) => {
                let Some(without) = super::nulls::without_optional_nulls(&self.schema, text) else {
                    return Err(issues);
                };
                let holds = with_tape(|tape| {
                    fill_from_text(tape, &without).is_ok() && self.check(tape).is_ok()
                });
                if !holds {
                    return Err(issues);
                }
                Ok(Cow::Owned(without))
            }
        }
    }

    pub(crate) fn check(&self, tape: &Tape) -> Result<(), Issues> {
        if !self.validator.is_valid(tape.root()) {
            return Err(Issues::of(&self.validator, &self.schema, tape.root()));
        }
        self.allow.check(tape.root())
    }

    /// Checks a typed value (a test's input, a tool's output, an agent's structured answer),
    /// written on a pooled tape. Only writing it depends on `V`; the tape and the check are
    /// [`check_written`](Self::check_written), compiled once.
    pub(crate) fn check_value<V: Serialize>(&self, value: &V) -> Result<(), Issues> {
        self.check_written(&|tape| fill_from_serialize(tape, value))
            .map_err(|failure| failure.unwrap_or_else(|error| unwritable(value, &error)))
    }

    /// Checks a JSON text already written (a rendered output), read onto a pooled tape: nothing
    /// here depends on the type it was written from.
    pub(crate) fn check_text(&self, text: &str) -> Result<(), Issues> {
        with_tape(|tape| {
            fill_from_text(tape, text).map_err(|e| Issues::malformed(&e))?;
            self.check(tape)
        })
    }

    /// Checks what `write` writes on a pooled tape: `Err(Ok(issues))` if it does not hold,
    /// `Err(Err(error))` if it could not be written as JSON.
    fn check_written(
        &self,
        write: &dyn Fn(&mut Tape) -> Result<(), TapeError>,
    ) -> Result<(), Result<Issues, TapeError>> {
        with_tape(|tape| {
            write(tape).map_err(Err)?;
            self.check(tape).map_err(Ok)
        })
    }
}

/// `text`, which the schema accepted, read as an `I`.
fn read_typed<I: DeserializeOwned>(text: &str) -> Result<I, Issues> {
    // The strict reader refuses nothing the schema accepted; it is used here so that a tool's
    // input type is read by one instantiation on both paths.
    // A `match`, not `map_err` with a closure: each closure is compiled again for every input.
    match strict::read::<I>(text) {
        Ok(input) => Ok(input),
        Err(refused) => Err(where_refused(text, &refused, true)),
    }
}

/// Redeemed arguments (a `wants` tool's, with each reference replaced by its artifact) read as
/// an `I`, through their JSON text: `I` is then read by the same code as arguments without
/// artifacts, rather than by a second copy for `Value`s in every tool. The issues read as a
/// `Value`'s would: without a position in the text.
pub(crate) fn read_redeemed<I: DeserializeOwned>(arguments: &Value) -> Result<I, Issues> {
    let text = arguments.to_string();
    match strict::read::<I>(&text) {
        Ok(input) => Ok(input),
        Err(refused) => Err(where_refused(&text, &refused, false)),
    }
}

/// Where, and why, serde refused `text` although the schema accepted it (a hand-written
/// schema, a duplicate key, or a serde attribute schemars does not model); the message without
/// its position in `text` unless `positions`. Not generic: the reader marked where the refusal
/// happened as it read, so nothing reads the text a second time.
#[cold]
fn where_refused(text: &str, refused: &strict::Refused, positions: bool) -> Issues {
    let error = &refused.error;
    let message = error.to_string();
    let message = match positions {
        true => message,
        false => {
            let position = format!(" at line {} column {}", error.line(), error.column());
            match message.strip_suffix(&position) {
                Some(message) if error.line() != 0 => message.to_owned(),
                _ => message,
            }
        }
    };
    Issues::one(refused.path(text), message)
}

/// Why `value` is not JSON at all (a map with keys that are not strings, a `serialize_with`
/// that fails), and where: the cold path of rendering an output and of checking a typed value
/// (`error` is what the writer said). Where is read from the text `serde_json` had written when
/// it stopped, by the serializer that renders outputs anyway, so no second serializer (one that
/// tracks paths) is compiled for every output type.
#[cold]
pub(crate) fn unwritable<V: Serialize + ?Sized>(
    value: &V,
    error: &dyn std::fmt::Display,
) -> Issues {
    let mut written = Vec::new();
    let _ = serde_json::to_writer(&mut written, value);
    unwritable_after(&written, error)
}

/// [`unwritable`] once the text is written: not generic.
fn unwritable_after(written: &[u8], error: &dyn std::fmt::Display) -> Issues {
    let written = String::from_utf8_lossy(written);
    Issues::one(
        super::conform::trail::path_of_partial(&written),
        error.to_string(),
    )
}

impl std::fmt::Debug for CompiledSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchemas")
            .field("input", &self.input.schema)
            .field("output", &self.output.schema)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Place {
        city: String,
        rows: Vec<u8>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Input {
        limit: u32,
        place: Place,
        kind: Option<Kind>,
        #[serde(default)]
        more: Vec<Place>,
        #[serde(default)]
        named: BTreeMap<String, Kind>,
    }

    #[derive(Debug, Deserialize, Serialize)]
    #[allow(dead_code)]
    enum Kind {
        Plain,
        Tagged(String),
        Pair(u8, bool),
        Shaped { size: u32 },
    }

    /// What `serde_path_to_error` (the reference: it reads the text a second time, tracking
    /// the path) says of a refusal.
    fn reference<E: std::fmt::Display>(error: serde_path_to_error::Error<E>) -> Issues {
        let path = error.path().to_string();
        let path = (path != ".").then_some(path);
        Issues::one(path, error.into_inner().to_string())
    }

    const REFUSED: &[&str] = &[
        r#"{"limit": "7", "place": {"city": "x", "rows": []}}"#,
        r#"{"limit": 5000000000, "place": {"city": "x", "rows": []}}"#,
        r#"{"limit": 1.5, "place": {"city": "x", "rows": []}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": [1, 300]}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": "text"}}"#,
        r#"{"limit": 1, "place": {"city": "x"}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": [], "other": 1}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "kind": "Other"}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "kind": {"Tagged": 1}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "kind": {"Pair": [1, 2]}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "kind": {"Pair": [1]}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "kind": {"Shaped": {"size": -1}}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "kind": {"Shaped": {}}}"#,
        r#"{"limit": 1, "place": null}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "more": [{"city": "y", "rows": [1]}, {"city": 2, "rows": []}]}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "more": [{"city": "y", "rows": [1, [2]]}]}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "named": {"a.b": "Plain", "c\"d": {"Tagged": false}}}"#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}, "named": {"k": "Nope"}}"#,
        r#"{"place": {"city": "x", "rows": []}, "limit": 1, "limit": 2}"#,
        r#" { "limit" : 1 , "pl\u0061ce" : { "city" : "x" , "rows" : [ 1 , -1 ] } } "#,
        r#"{"limit": 1}"#,
        r#""text""#,
        r#"{"limit": 1, "place": {"city": "x", "rows": []}} {}"#,
    ];

    /// The strict reader names where it refused as `serde_path_to_error` does: the same path
    /// and message for arguments as sent (with the position) and for redeemed arguments (a
    /// `Value`, without it), although it reads each text once and names nothing while it reads.
    #[test]
    fn refusals_are_named_as_a_path_tracking_reader_names_them() {
        for text in REFUSED {
            let mut reader = serde_json::Deserializer::from_str(text);
            let expected = serde_path_to_error::deserialize::<_, Input>(&mut reader)
                .map(|_| ())
                .map_err(reference)
                .and_then(|()| reader.end().map_err(|e| Issues::one(None, e.to_string())));
            let read = read_typed::<Input>(text).map(|_| ());
            assert!(expected.is_err(), "{text} is refused");
            assert_eq!(read, expected, "{text}");
        }
        for text in REFUSED.iter().filter(|text| !text.ends_with("{}")) {
            let arguments: Value = serde_json::from_str(text).unwrap();
            let as_value = serde_path_to_error::deserialize::<_, Input>(arguments.clone())
                .map(|_| ())
                .map_err(reference);
            let as_text = read_redeemed::<Input>(&arguments).map(|_| ());
            assert_eq!(as_text, as_value, "{arguments}");
        }
        let read: Input =
            read_redeemed(&json!({"limit": 3, "place": {"city": "x", "rows": [1]}})).unwrap();
        assert_eq!((read.limit, read.place.rows), (3, vec![1]));
        // Where the strict reader refuses what serde alone reads, it says so at the value.
        let refused = read_typed::<Input>(r#"{"limit": 1, "place": ["x", []]}"#).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "place: invalid type: sequence, expected struct Place at line 1 column 23"
        );
    }

    /// A value shaped like `Input` where any part may be replaced by something else: a leaf
    /// of another type, an array, an object with an unknown member, or nothing.
    fn near_input() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..400).prop_map(Value::from),
            Just(json!(1.5)),
            Just(json!(5_000_000_000u64)),
            "[a-z\\\"]{0,3}".prop_map(Value::from),
            Just(json!([1, "x"])),
            Just(json!({"other": 1})),
        ];
        let or =
            |good: BoxedStrategy<Value>| prop_oneof![6 => good, 1 => leaf.clone().boxed()].boxed();
        let rows = or(proptest::collection::vec(
            or((0u8..=255).prop_map(Value::from).boxed()),
            0..3,
        )
        .prop_map(Value::from)
        .boxed());
        let place = or((or("[a-z]{1,3}".prop_map(Value::from).boxed()), rows)
            .prop_map(|(city, rows)| json!({"city": city, "rows": rows}))
            .boxed());
        let kind = or(prop_oneof![
            Just(json!("Plain")),
            Just(json!("Other")),
            Just(json!({"Plain": null})),
            "[a-z]{0,2}".prop_map(|t| json!({"Tagged": t})),
            (0u8..3, any::<bool>()).prop_map(|(a, b)| json!({"Pair": [a, b]})),
            (-1i64..3).prop_map(|size| json!({"Shaped": {"size": size}})),
        ]
        .boxed());
        let more = or(proptest::collection::vec(place.clone(), 0..3)
            .prop_map(Value::from)
            .boxed());
        let named = or(
            proptest::collection::btree_map("[a-z.\"]{1,3}", kind.clone(), 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect()))
                .boxed(),
        );
        (
            or((0u32..9).prop_map(Value::from).boxed()),
            place,
            kind,
            more,
            named,
            any::<u8>(),
        )
            .prop_map(|(limit, place, kind, more, named, drop)| {
                let mut object = serde_json::Map::new();
                for (i, (key, value)) in [
                    ("limit", limit),
                    ("place", place),
                    ("kind", kind),
                    ("more", more),
                    ("named", named),
                ]
                .into_iter()
                .enumerate()
                {
                    if drop & (1 << i) == 0 || i >= 2 && drop & 0x80 == 0 {
                        object.insert(key.into(), value);
                    }
                }
                if drop == 255 {
                    object.insert("extra".into(), json!(1));
                }
                Value::Object(object)
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]

        /// On generated arguments, mostly refused somewhere deep: the same path and message as
        /// the path-tracking reader, for text (pretty or compact) and for redeemed values.
        #[test]
        fn refusals_match_the_path_tracking_reader(arguments in near_input(), pretty: bool) {
            let text = match pretty {
                true => serde_json::to_string_pretty(&arguments).unwrap(),
                false => arguments.to_string(),
            };
            let mut reader = serde_json::Deserializer::from_str(&text);
            let expected = serde_path_to_error::deserialize::<_, Input>(&mut reader)
                .map(|_| ())
                .map_err(reference);
            // `{"Plain": null}` is refused by the strict reader alone (as the schema refuses it),
            // wherever serde would fail later.
            proptest::prop_assume!(!arguments.to_string().contains(r#"{"Plain":null}"#));
            // The strict reader reads an enum from what the text holds, so on two forms its
            // message is its own: `{"Plain": null}` (which serde alone takes) and an enum
            // written as neither a string nor an object (serde_json says `expected value`).
            // The path is the same.
            let own_message = |issues: &Issues| {
                let message = &issues.as_slice()[0].message;
                message.starts_with("expected value") || message.contains("expected enum Kind")
            };
            let read = read_typed::<Input>(&text).map(|_| ());
            // A struct written as an array is refused by the strict reader alone too.
            let strict_only = |read: &Result<(), Issues>| {
                read.as_ref().is_err_and(|issues| {
                    issues.as_slice()[0].message.starts_with("invalid type: sequence, expected struct")
                })
            };
            proptest::prop_assume!(!strict_only(&read));
            match (&read, &expected) {
                (Err(read), Err(reference)) if own_message(reference) || own_message(read) => {
                    proptest::prop_assert_eq!(&read.as_slice()[0].path, &reference.as_slice()[0].path);
                }
                _ => proptest::prop_assert_eq!(read, expected),
            }
            let as_value = serde_path_to_error::deserialize::<_, Input>(arguments.clone())
                .map(|_| ())
                .map_err(reference);
            let redeemed = read_redeemed::<Input>(&arguments).map(|_| ());
            match (&redeemed, &as_value) {
                (Err(read), Err(reference)) if own_message(reference) || own_message(read) => {
                    proptest::prop_assert_eq!(&read.as_slice()[0].path, &reference.as_slice()[0].path);
                }
                _ => proptest::prop_assert_eq!(redeemed, as_value),
            }
        }
    }

    #[derive(Serialize)]
    struct Out {
        a: u8,
        items: Vec<Item>,
        kinds: Vec<Kind>,
        keyed: BTreeMap<(u8, u8), u8>,
    }

    #[derive(Serialize)]
    struct Item {
        name: String,
        #[serde(serialize_with = "refuse_x")]
        value: String,
    }

    fn refuse_x<S: serde::Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
        match text {
            "x" => Err(serde::ser::Error::custom("has no JSON form")),
            _ => s.serialize_str(text),
        }
    }

    /// An output that cannot be written is named from the text written up to where it
    /// stopped, as `serde_path_to_error` names it.
    #[test]
    fn unwritable_outputs_are_named_as_a_path_tracking_writer_names_them() {
        let item = |name: &str, value: &str| Item {
            name: name.into(),
            value: value.into(),
        };
        let outputs = [
            Out {
                a: 1,
                items: vec![item("a", "ok"), item("b\"],{", "ok"), item("c", "x")],
                kinds: vec![],
                keyed: BTreeMap::new(),
            },
            Out {
                a: 1,
                items: vec![item("x", "x")],
                kinds: vec![],
                keyed: BTreeMap::new(),
            },
            Out {
                a: 1,
                items: vec![],
                kinds: vec![Kind::Plain],
                keyed: BTreeMap::from([((1, 2), 3)]),
            },
        ];
        for output in &outputs {
            let mut sink = serde_json::Serializer::new(std::io::sink());
            let expected =
                reference(serde_path_to_error::serialize(output, &mut sink).unwrap_err());
            let error = serde_json::to_string(output).unwrap_err();
            assert_eq!(unwritable(output, &error), expected);
        }
    }
}
