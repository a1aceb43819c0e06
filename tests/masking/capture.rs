//! A tracing subscriber that keeps every span's and event's fields, messages included, as
//! text: where T14 looks for entities in the logs.

use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

struct Capture {
    next: AtomicU64,
    text: Arc<Mutex<String>>,
}

struct Fields<'a>(&'a mut String);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push_str(&format!("{}={value} ", field.name()));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut line = format!("span {} ", attributes.metadata().name());
        attributes.record(&mut Fields(&mut line));
        self.text.lock().unwrap().push_str(&(line + "\n"));
        Id::from_u64(self.next.fetch_add(1, Ordering::SeqCst) + 1)
    }
    fn record(&self, _: &Id, values: &Record<'_>) {
        let mut line = String::from("record ");
        values.record(&mut Fields(&mut line));
        self.text.lock().unwrap().push_str(&(line + "\n"));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut line = format!("event {} ", event.metadata().target());
        event.record(&mut Fields(&mut line));
        self.text.lock().unwrap().push_str(&(line + "\n"));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Installs the subscriber for the whole process (this test binary); returns what it keeps.
pub fn install() -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let capture = Capture {
        next: AtomicU64::new(0),
        text: text.clone(),
    };
    tracing::subscriber::set_global_default(capture).expect("the only subscriber");
    text
}
