//! The desk's stand-in for a model when no provider is configured: it reads the conversation
//! it is sent, as a model does, rather than playing turns in order, so a run paused in one
//! process and approved in another goes on where it stopped. It knows the desk's three kinds
//! of question (save a note, find a note, find jobs) and says so for any other.

use agboss::context::Signal;
use agboss::model::{
    ChatFuture, ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ModelError, ToolCall,
    Usage,
};
use serde_json::{Value, json};

/// Words a question is made of that say nothing about what to look for.
const STOP: &[&str] = &[
    "a", "an", "the", "me", "my", "i", "is", "are", "when", "what", "where", "find", "do", "have",
    "any", "for", "jobs", "job", "about", "some",
];

/// The scripted desk model.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeskModel;

impl ChatModel for DeskModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, signal: &'a Signal) -> ChatFuture<'a> {
        let answer = match signal.reason() {
            Some(reason) => Err(ModelError::Aborted(reason)),
            None => Ok(answer(request)),
        };
        Box::pin(std::future::ready(answer))
    }
}

fn answer(request: &ChatRequest) -> ChatResponse {
    let offers = |tool: &str| request.tools.iter().any(|t| t.name == tool);
    let reply = match request.messages.last() {
        // Asked with no tools: the thread's memory wants a summary of an old turn.
        _ if request.tools.is_empty() => text(summary(&request.messages)),
        Some(Message::Tool {
            name,
            content,
            is_error,
            ..
        }) => text(after_tool(name, content, *is_error, &request.messages)),
        Some(Message::User { text: said }) => {
            // What a context-mode knowledge base added follows the question (scout's advice).
            let question = &said
                .split_once("\n\n[knowledge base ")
                .map_or(said.clone(), |(question, _)| question.to_owned());
            if offers("search-docs-rag-tool") && question.starts_with("How") {
                call(
                    "search-docs-rag-tool",
                    json!({ "query": keywords(question), "top_k": 1 }),
                )
            } else if offers("note-save-tool") && question.to_lowercase().starts_with("remember") {
                let note = question
                    .split_once(':')
                    .map_or(question.as_str(), |(_, rest)| rest)
                    .trim()
                    .trim_end_matches('.');
                call("note-save-tool", json!({ "text": capitalized(note) }))
            } else if offers("note-search-tool") {
                call("note-search-tool", json!({ "words": subject(question) }))
            } else if offers("greenhouse-jobs-tool") {
                call(
                    "greenhouse-jobs-tool",
                    json!({ "words": keywords(question) }),
                )
            } else {
                text(unknown())
            }
        }
        _ => text(unknown()),
    };
    ChatResponse {
        usage: Usage {
            input_tokens: 40 + request.messages.len() as u64 * 20,
            output_tokens: 12,
        },
        ..reply
    }
}

/// What the model says once a tool answered.
fn after_tool(tool: &str, content: &str, is_error: bool, messages: &[Message]) -> String {
    if is_error {
        return match tool {
            "note-save-tool" => format!("I did not save the note. {content}"),
            _ => format!("That did not work. {content}"),
        };
    }
    let result: Value = serde_json::from_str(content).unwrap_or(Value::Null);
    match tool {
        "note-save-tool" => match last_call_arguments(messages)["text"].as_str() {
            Some(note) => format!("Saved: {note}."),
            None => "Saved.".to_owned(),
        },
        "note-search-tool" => {
            let notes: Vec<&str> = result["notes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if notes.is_empty() {
                "You have no note about that.".to_owned()
            } else {
                format!("From your notes: {}.", notes.join("; "))
            }
        }
        "search-docs-rag-tool" => match result["passages"].as_array().and_then(|p| p.first()) {
            Some(passage) => format!(
                "The guides say ({}:{}, {}): {}",
                passage["source"].as_str().unwrap_or_default(),
                passage["line"],
                passage["heading"].as_str().unwrap_or_default(),
                first_sentence(passage["text"].as_str().unwrap_or_default()),
            ),
            None => "The guides say nothing about that.".to_owned(),
        },
        "greenhouse-jobs-tool" => {
            let jobs: Vec<String> = result["jobs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|job| format!("{}, {} ({})", job["title"], job["location"], job["url"]))
                .map(|line| line.replace('"', ""))
                .collect();
            match jobs.len() {
                0 => "No opening matches.".to_owned(),
                1 => format!("One opening matches: {}.", jobs[0]),
                n => format!("{n} openings match: {}.", jobs.join("; ")),
            }
        }
        _ => format!("The tool said: {content}"),
    }
}

/// The first sentence of `text` after its heading lines, on one line.
fn first_sentence(text: &str) -> String {
    let body = text.lines().filter(|line| !line.starts_with('#'));
    let line = body
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ");
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line,
    }
}

/// The arguments of the last call the model made, as JSON.
fn last_call_arguments(messages: &[Message]) -> Value {
    messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::Assistant { tool_calls, .. } => tool_calls.last(),
            _ => None,
        })
        .and_then(|call| serde_json::from_str(&call.arguments).ok())
        .unwrap_or(Value::Null)
}

/// A summary of an old turn: what the user said and what the desk answered.
fn summary(messages: &[Message]) -> String {
    let said = messages.iter().find_map(|message| match message {
        Message::User { text } => Some(text.as_str()),
        _ => None,
    });
    let answered = messages.iter().rev().find_map(|message| match message {
        Message::Assistant {
            text: Some(text), ..
        } => Some(text.as_str()),
        _ => None,
    });
    format!(
        "The user said {:?}; the desk answered {:?}.",
        said.unwrap_or_default(),
        answered.unwrap_or_default()
    )
}

/// The word after "my" ("When is my dentist appointment?" -> "dentist"), else the keywords.
fn subject(question: &str) -> String {
    let words: Vec<String> = words(question).collect();
    match words.iter().position(|word| word == "my") {
        Some(i) if i + 1 < words.len() => words[i + 1].clone(),
        _ => keywords(question),
    }
}

/// The question's words that say what to look for ("Find me remote Rust jobs." -> "remote
/// rust").
fn keywords(question: &str) -> String {
    words(question)
        .filter(|word| !STOP.contains(&word.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn words(question: &str) -> impl Iterator<Item = String> + '_ {
    question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn unknown() -> String {
    "I am the desk's scripted model: I can save a note (\"Remember: ...\"), find one, or find jobs. Set a provider's key to talk to a real model.".to_owned()
}

fn text(text: String) -> ChatResponse {
    ChatResponse {
        text: Some(text),
        finish: FinishReason::Stop,
        ..ChatResponse::default()
    }
}

fn call(tool: &str, arguments: Value) -> ChatResponse {
    ChatResponse {
        text: None,
        tool_calls: vec![ToolCall {
            provider_id: None,
            name: tool.to_owned(),
            arguments: arguments.to_string(),
        }],
        finish: FinishReason::ToolCalls,
        ..ChatResponse::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_reads_what_to_look_for_from_the_question() {
        assert_eq!(subject("When is my dentist appointment?"), "dentist");
        assert_eq!(keywords("Find me remote Rust jobs."), "remote rust");
        assert_eq!(
            capitalized("the dentist is on Tuesday at 9"),
            "The dentist is on Tuesday at 9"
        );
    }
}
