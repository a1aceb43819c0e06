//! The client of an OpenAI-compatible embeddings endpoint: `POST {base_url}/embeddings` with
//! `{"model", "input": [texts]}`, answered with `data[i].embedding`. Texts go in batches of the
//! settings' size; each request is bounded by the timeout, on the index's clock. The key is
//! read from the variable the settings name, sent as a bearer token marked sensitive, and never
//! written in an error.

use std::fmt;

use reqwest::header::{AUTHORIZATION, HeaderValue};
use serde_json::{Value, json};

use super::spec::Embeddings;
use crate::base::http::{api_client, error_chain};
use crate::knowledge::KnowledgeError;
use crate::time::Clock;

/// The most bytes of an error answer an error quotes.
const QUOTED_BYTES: usize = 300;

/// A connection to one embeddings endpoint.
pub struct Embedder {
    settings: Embeddings,
    url: String,
    key: Option<String>,
    clock: Clock,
    http: Result<reqwest::Client, String>,
}

impl fmt::Debug for Embedder {
    /// Never prints the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Embedder")
            .field("url", &self.url)
            .field("model", &self.settings.model)
            .field("key", &self.key.as_ref().map(|_| "<set>"))
            .finish_non_exhaustive()
    }
}

impl Embedder {
    /// A client for `settings`, its key read now; a failure to build the HTTP client is the
    /// error of every request.
    pub fn new(settings: Embeddings, clock: Clock) -> Embedder {
        let key = settings
            .api_key_env
            .as_deref()
            .and_then(|name| settings.env.get(name))
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty());
        let http = api_client().map(|(client, _)| client);
        Embedder {
            url: format!("{}/embeddings", settings.base_url),
            settings,
            key,
            clock,
            http,
        }
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.settings.model
    }

    /// The embeddings of `texts`, in their order, asked `batch_size` at a time; `done` is told
    /// how many are embedded after each batch.
    pub async fn embed(
        &self,
        texts: &[String],
        done: &mut (dyn FnMut(usize) + Send),
    ) -> Result<Vec<Vec<f32>>, KnowledgeError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.settings.batch_size.max(1)) {
            out.extend(self.request(batch).await?);
            done(out.len());
        }
        Ok(out)
    }

    /// One request for `batch`, raced against the timeout.
    async fn request(&self, batch: &[String]) -> Result<Vec<Vec<f32>>, KnowledgeError> {
        let fail = |what: String| KnowledgeError::Embeddings(format!("POST {}: {what}", self.url));
        if let (Some(name), None) = (&self.settings.api_key_env, &self.key) {
            return Err(fail(format!(
                "{name} is not set (it holds the endpoint's key)"
            )));
        }
        let http = self.http.as_ref().map_err(|e| fail(e.clone()))?;
        let body = json!({"model": self.settings.model, "input": batch});
        let mut request = http.post(&self.url).json(&body);
        if let Some(key) = &self.key {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}"))
                .map_err(|_| fail("the key is not a valid header value".into()))?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        let call = async {
            let response = request.send().await.map_err(|e| {
                fail(format!(
                    "{}; check base_url and the network",
                    error_chain(&e)
                ))
            })?;
            let status = response.status();
            let text = response
                .text()
                .await
                .map_err(|e| fail(format!("reading the answer: {}", error_chain(&e))))?;
            if !status.is_success() {
                return Err(fail(format!("status {status}: {}", self.quoted(&text))));
            }
            parse(&text, batch.len()).map_err(fail)
        };
        tokio::select! {
            result = call => result,
            () = self.clock.sleep(self.settings.timeout) => Err(fail(format!(
                "no answer within {:?}",
                self.settings.timeout
            ))),
        }
    }

    /// The start of an error answer, the key (if echoed) redacted.
    fn quoted(&self, text: &str) -> String {
        let mut text = text.trim().to_owned();
        if let Some(key) = &self.key {
            text = text.replace(key.as_str(), "[redacted]");
        }
        if text.len() > QUOTED_BYTES {
            let mut cut = QUOTED_BYTES;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("...");
        }
        text
    }
}

/// The `expected` embeddings of an answer, in the order of the input (by `index` when the
/// items carry one).
fn parse(text: &str, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let data = value
        .get("data")
        .and_then(Value::as_array)
        .ok_or("the answer has no `data` list")?;
    if data.len() != expected {
        return Err(format!(
            "{} embeddings answered for {expected} inputs",
            data.len()
        ));
    }
    let mut items: Vec<(usize, Vec<f32>)> = Vec::with_capacity(data.len());
    for (position, item) in data.iter().enumerate() {
        let index = item
            .get("index")
            .and_then(Value::as_u64)
            .map_or(position, |i| i as usize);
        let vector = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("data[{position}] has no `embedding` list"))?
            .iter()
            .map(|x| x.as_f64().map(|x| x as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| format!("data[{position}].embedding holds something not a number"))?;
        items.push((index, vector));
    }
    items.sort_by_key(|(index, _)| *index);
    Ok(items.into_iter().map(|(_, v)| v).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_in_input_order() {
        let text =
            r#"{"data": [{"index": 1, "embedding": [0.5]}, {"index": 0, "embedding": [1, 2]}]}"#;
        assert_eq!(parse(text, 2), Ok(vec![vec![1.0, 2.0], vec![0.5]]));
        assert!(parse(text, 3).is_err_and(|e| e.contains("2 embeddings answered for 3")));
        assert!(parse("{}", 1).is_err_and(|e| e.contains("no `data`")));
    }
}
