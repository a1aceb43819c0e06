//! OpenAI's strict mode: tools go out with `"strict": true` and their schemas lowered (every
//! property required, objects closed, optional fields nullable) when the provider's settings
//! ask for it, and the `null`s a model then sends for optional fields are read as absent.

use std::sync::Mutex;

use agboss::config::Config;
use agboss::prelude::*;
use agboss::run::Completed;
use agboss::{Application, Workflow};
use wire_server::fixture;

use super::*;
use fixtures::run::completed;

/// A tool with optional, nested and array fields, and keywords strict mode does not take
/// (`maxLength`, `default`, `format: uint32`).
fn shipment_tool() -> ToolDefinition {
    ToolDefinition {
        name: "plan-shipment-tool".into(),
        description: "Plans a shipment".into(),
        input_schema: json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "ShipmentRequest",
            "type": "object",
            "properties": {
                "order": {"type": "string", "maxLength": 20},
                "address": {"$ref": "#/$defs/Address", "description": "Where it goes"},
                "parcels": {"type": "array", "items": {"$ref": "#/$defs/Parcel"}, "minItems": 1},
                "note": {"type": ["string", "null"], "default": null},
                "max_days": {"type": "integer", "format": "uint32", "minimum": 0, "default": 0}
            },
            "required": ["order", "address", "parcels"],
            "$defs": {
                "Address": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                    "required": ["city"]
                },
                "Parcel": {
                    "type": "object",
                    "properties": {"weight_grams": {"type": "integer", "format": "uint32"}},
                    "required": ["weight_grams"],
                    "additionalProperties": false
                }
            }
        }),
    }
}

/// A tool whose input is a map with arbitrary keys: no strict form.
fn labels_tool() -> ToolDefinition {
    ToolDefinition {
        name: "set-labels-tool".into(),
        description: "Sets labels".into(),
        input_schema: json!({
            "type": "object",
            "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["labels"]
        }),
    }
}

/// What the local server got for one request with `tools`, from a provider set up by `settings`.
async fn sent_with(settings: ProviderSettings, tools: Vec<ToolDefinition>) -> Recorded {
    let server = WireServer::start([OPENAI.canned(200, "text")]).await;
    let settings = ProviderSettings {
        base_url: server.base_url(),
        ..settings
    };
    let model = connect(settings, &OPENAI.env(), Clock::from(ManualClock::new()));
    let request = ChatRequest {
        tools,
        ..OPENAI.question()
    };
    model.chat(&request, &Signal::new()).await.unwrap();
    server.requests().remove(0)
}

#[test]
fn openai_sends_strict_tools_lowered_when_its_settings_ask() {
    run(async {
        let strict = OPENAI.settings("").with_strict_tools(true);
        let request = sent_with(strict, vec![shipment_tool(), labels_tool()]).await;
        let address = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
            "required": ["city", "zip"],
            "additionalProperties": false
        });
        let parcel = json!({
            "type": "object",
            "properties": {"weight_grams": {"type": "integer"}},
            "required": ["weight_grams"],
            "additionalProperties": false
        });
        let mut inlined = address.clone();
        inlined["description"] = json!("Where it goes");
        assert_eq!(
            request.body["tools"],
            json!([
                {"type": "function", "function": {
                    "name": "plan-shipment-tool",
                    "description": "Plans a shipment",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "order": {"type": "string"},
                            "address": inlined,
                            "parcels": {"type": "array", "items": {"$ref": "#/$defs/Parcel"}, "minItems": 1},
                            "note": {"type": ["string", "null"]},
                            "max_days": {"type": ["integer", "null"], "minimum": 0}
                        },
                        "required": ["order", "address", "parcels", "note", "max_days"],
                        "additionalProperties": false,
                        "$defs": {"Address": address, "Parcel": parcel}
                    },
                    "strict": true
                }},
                // No strict form: sent as without strict mode.
                labels_tool().to_openai(),
            ])
        );
        assert_eq!(request.problems, Vec::<String>::new());
    });
}

#[test]
fn only_openai_itself_gets_strict_tools_by_default() {
    let at = |url: &str| ProviderSettings::new("x", WireFormat::OpenAi, url, None);
    assert!(ProviderSettings::openai().sends_strict_tools());
    assert!(at("https://API.openai.com:443/v1").sends_strict_tools());
    assert!(!at("https://api.openai.com.example.net/v1").sends_strict_tools());
    assert!(!at("http://127.0.0.1:8080/v1").sends_strict_tools());
    assert!(!ProviderSettings::openrouter().sends_strict_tools());
    assert!(!ProviderSettings::anthropic().sends_strict_tools());
    assert!(
        !ProviderSettings::openai()
            .with_strict_tools(false)
            .sends_strict_tools()
    );
    run(async {
        // A compatible server, as the replay server is, gets the tools as they were.
        let request = sent_with(OPENAI.settings(""), vec![shipment_tool()]).await;
        assert_eq!(request.body["tools"], json!([shipment_tool().to_openai()]));
    });
}

/// Where a parcel goes.
#[dto]
pub struct Address {
    /// The city.
    pub city: String,
    /// The postal code, if known.
    pub zip: Option<String>,
}

/// One parcel.
#[dto]
pub struct Parcel {
    /// Its weight.
    pub weight_grams: u32,
    /// How many alike.
    #[serde(default = "one")]
    pub count: u32,
    /// Whether it breaks.
    pub fragile: Option<bool>,
}

fn one() -> u32 {
    1
}

/// What to ship.
#[dto]
pub struct ShipmentRequest {
    /// The order's id.
    pub order: String,
    /// Where it goes.
    pub address: Address,
    /// The parcels.
    pub parcels: Vec<Parcel>,
    /// A note for the courier.
    #[schemars(length(max = 200))]
    pub note: Option<String>,
    /// The most days it may take; 0 for no limit.
    #[serde(default)]
    pub max_days: u32,
}

/// The plan.
#[dto]
pub struct Plan {
    /// Who carries it.
    pub courier: String,
}

/// The agent's answer.
#[dto]
pub struct ShipmentPlan {
    /// Who carries it.
    pub courier: String,
    /// Days to arrival, if known.
    #[serde(default)]
    pub eta_days: u32,
}

#[tool(
    name = "plan-shipment-tool",
    description = "Plans a shipment",
    read_only = true
)]
pub struct PlanShipment {
    seen: Arc<Mutex<Vec<String>>>,
}

impl ToolHandler for PlanShipment {
    type Input = ShipmentRequest;
    type Output = Plan;

    async fn run(&self, input: ShipmentRequest) -> Result<Plan, ToolError> {
        let parcels: Vec<String> = input
            .parcels
            .iter()
            .map(|p| format!("{}g x{} fragile={:?}", p.weight_grams, p.count, p.fragile))
            .collect();
        self.seen.lock().unwrap().push(format!(
            "{} to {} zip={:?} [{}] note={:?} max_days={}",
            input.order,
            input.address.city,
            input.address.zip,
            parcels.join(", "),
            input.note,
            input.max_days
        ));
        Ok(Plan {
            courier: "Posten".into(),
        })
    }
}

#[agent(
    name = "shipper",
    description = "Plans shipments",
    prompt = "../prompts/lookup.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [PlanShipment],
    output = ShipmentPlan,
)]
pub struct Shipper;

/// Runs the shipper against a server replaying a strict-mode call, then a strict-mode answer,
/// with `strict_tools = true` in its model's section.
async fn run_shipper() -> (Completed, Vec<Recorded>, Vec<String>) {
    let server = WireServer::start([
        Canned::json(200, fixture("openai", "strict_tool_call")),
        Canned::json(200, fixture("openai", "strict_answer")),
    ])
    .await;
    let config = Config::from_toml(
        "strict.toml",
        &format!(
            r#"
            [agents.shipper]
            model = "wire/test-model"

            [models.wire]
            kind = "openai"
            base_url = "{}"
            api_key_env = "WIRE_KEY"
            strict_tools = true
            "#,
            server.base_url()
        ),
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let app = Application::builder("strict")
        .workflow(Workflow::new("ship").agent::<Shipper>())
        .provide(seen.clone())
        .config(config)
        .env(Env::from_pairs([("WIRE_KEY", "test-key")]))
        .build()
        .unwrap();
    let outcome = completed(app.run("ship", "Ship order A-7 to Oslo.")).await;
    let seen = seen.lock().unwrap().clone();
    (outcome, server.requests(), seen)
}

#[test]
fn a_strict_call_with_null_optional_fields_runs_the_tool() {
    let (outcome, requests, seen) = run(run_shipper());
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["tools"], shipper_tools());
    assert_eq!(requests[0].problems, Vec::<String>::new());
    assert_eq!(
        seen,
        [
            "A-7 to Oslo zip=None [1200g x1 fragile=None, 300g x2 fragile=Some(true)] note=None max_days=0"
        ]
    );
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(result["tool_call_id"], "call_Sm4rT7vQ");
    assert_eq!(result["content"], r#"{"courier":"Posten"}"#);
    assert_eq!(
        outcome.answer,
        agboss::run::Answer::Structured(json!({"courier": "Posten"}))
    );
}

/// The shipper's tools as strict mode gets them: `maxLength`, `default` and `format: uint32`
/// gone, `$ref` with a description inlined, every property required, the optional ones
/// (`Option`s and `#[serde(default)]`s) nullable. The answer tool is lowered the same way.
fn shipper_tools() -> Value {
    let address = |description: &str| {
        json!({
            "type": "object",
            "description": description,
            "properties": {
                "city": {"type": "string", "description": "The city."},
                "zip": {"type": ["string", "null"], "description": "The postal code, if known."}
            },
            "required": ["city", "zip"],
            "additionalProperties": false
        })
    };
    let parcel = json!({
        "type": "object",
        "description": "One parcel.",
        "properties": {
            "weight_grams": {"type": "integer", "minimum": 0, "description": "Its weight."},
            "count": {"type": ["integer", "null"], "minimum": 0, "description": "How many alike."},
            "fragile": {"type": ["boolean", "null"], "description": "Whether it breaks."}
        },
        "required": ["weight_grams", "count", "fragile"],
        "additionalProperties": false
    });
    let request = json!({
        "type": "object",
        "description": "What to ship.",
        "properties": {
            "order": {"type": "string", "description": "The order's id."},
            "address": address("Where it goes."),
            "parcels": {"type": "array", "items": {"$ref": "#/$defs/Parcel"}, "description": "The parcels."},
            "note": {"type": ["string", "null"], "description": "A note for the courier."},
            "max_days": {
                "type": ["integer", "null"],
                "minimum": 0,
                "description": "The most days it may take; 0 for no limit."
            }
        },
        "required": ["order", "address", "parcels", "note", "max_days"],
        "additionalProperties": false,
        "$defs": {"Address": address("Where a parcel goes."), "Parcel": parcel}
    });
    json!([
        {"type": "function", "function": {
            "name": "plan-shipment-tool",
            "description": "Plans a shipment",
            "parameters": request,
            "strict": true
        }},
        {"type": "function", "function": {
            "name": "answer-shipment-plan",
            "description": "Give your final answer as shipment-plan.",
            "parameters": {
                "type": "object",
                "description": "The agent's answer.",
                "properties": {
                    "courier": {"type": "string", "description": "Who carries it."},
                    "eta_days": {"type": ["integer", "null"], "minimum": 0, "description": "Days to arrival, if known."}
                },
                "required": ["courier", "eta_days"],
                "additionalProperties": false
            },
            "strict": true
        }}
    ])
}
