//! Every field of every span and event this test binary traces, as text, to look for values
//! that must not be there.

use std::sync::{Mutex, OnceLock};

/// The binary's only subscriber, installed on first use.
pub fn traced() -> &'static Traced {
    static TRACED: OnceLock<&'static Traced> = OnceLock::new();
    TRACED.get_or_init(|| {
        let traced: &'static Traced = Box::leak(Box::default());
        tracing::subscriber::set_global_default(traced).expect("the binary's only subscriber");
        traced
    })
}

#[derive(Default)]
pub struct Traced {
    text: Mutex<String>,
}

impl Traced {
    /// What was traced so far.
    pub fn text(&self) -> String {
        self.text.lock().unwrap().clone()
    }
}

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={value:?};", field.name()));
    }
}

impl tracing::Subscriber for &'static Traced {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        span.record(&mut Fields(&mut self.text.lock().unwrap()));
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        values.record(&mut Fields(&mut self.text.lock().unwrap()));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = self.text.lock().unwrap();
        text.push_str(event.metadata().level().as_str());
        text.push(' ');
        event.record(&mut Fields(&mut text));
        text.push('\n');
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
