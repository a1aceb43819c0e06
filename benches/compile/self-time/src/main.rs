//! `self-time <profile>...`: the time rustc spent in each activity and query of a
//! `-Z self-profile` file, without the time of what it called (self time), summed over its
//! threads. Given two profiles (two crates' same step), prints both side by side, sorted by
//! the difference. A profile is named by its path without `.mm_profdata`.

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use analyzeme::{EventPayload, ProfilingData, Timestamp};

/// Seconds of self time and how many times, per `kind:label`.
type Totals = HashMap<String, (f64, usize)>;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() || paths.len() > 2 {
        eprintln!("usage: self-time <profile> [<other profile>]");
        std::process::exit(2);
    }
    let totals: Vec<Totals> = paths.iter().map(|p| self_times(Path::new(p))).collect();
    let mut labels: Vec<&String> = totals.iter().flat_map(|t| t.keys()).collect();
    labels.sort();
    labels.dedup();
    let of = |t: &Totals, l: &String| t.get(l).copied().unwrap_or((0.0, 0));
    let key = |l: &String| match &totals[..] {
        [one] => -of(one, l).0,
        [a, b] => of(a, l).0 - of(b, l).0,
        _ => unreachable!(),
    };
    labels.sort_by(|x, y| key(x).total_cmp(&key(y)));
    for (t, name) in totals.iter().zip(&paths) {
        let sum: f64 = t.values().map(|v| v.0).sum();
        println!("total self time {sum:.3} s: {name}");
    }
    for label in labels.into_iter().take(40) {
        let cells: Vec<String> = totals
            .iter()
            .map(|t| {
                let (s, n) = of(t, label);
                format!("{s:8.3} s {n:>8}")
            })
            .collect();
        println!("{}  {label}", cells.join(" | "));
    }
}

/// `kind:label`, and for a macro's expansion or a query's saved results the macro or the query
/// (recorded with `-Z self-profile-events=default,args`): `expand_proc_macro[Deserialize)]`,
/// the macro's path cut to its last segment, so a derive named through a re-export and one
/// named directly share a row.
fn labelled(kind: &str, label: &str, args: &[std::borrow::Cow<'_, str>]) -> String {
    let named = [
        "expand_proc_macro",
        "expand_derive",
        "encode_query_results_for",
    ];
    match args.first() {
        Some(arg) if named.iter().any(|n| label.contains(n)) => {
            let last = arg.rsplit("::").next().unwrap_or(arg);
            let last = last.rsplit("derive(").next().unwrap_or(last);
            format!("{kind}:{label}[{last}]")
        }
        _ => format!("{kind}:{label}"),
    }
}

/// Self time per label in the profile at `path`: each thread's intervals nested by time.
fn self_times(path: &Path) -> Totals {
    let data = ProfilingData::new(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut threads: HashMap<u32, Vec<(SystemTime, SystemTime, String)>> = HashMap::new();
    for event in data.iter_full() {
        if let EventPayload::Timestamp(Timestamp::Interval { start, end }) = event.payload {
            let label = labelled(&event.event_kind, &event.label, &event.additional_data);
            threads
                .entry(event.thread_id)
                .or_default()
                .push((start, end, label));
        }
    }
    let mut totals = Totals::new();
    for (_, mut events) in threads {
        // Outer intervals first where two start together.
        events.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        // Open intervals: end, label, length, time of the intervals inside it.
        let mut open: Vec<(SystemTime, String, f64, f64)> = Vec::new();
        let mut close = |open: &mut Vec<(SystemTime, String, f64, f64)>| {
            let (_, label, length, inside) = open.pop().expect("an open interval");
            let total = totals.entry(label).or_default();
            total.0 += length - inside;
            total.1 += 1;
            if let Some(parent) = open.last_mut() {
                parent.3 += length;
            }
        };
        for (start, end, label) in events {
            while open.last().is_some_and(|top| top.0 <= start) {
                close(&mut open);
            }
            let length = end.duration_since(start).map_or(0.0, |d| d.as_secs_f64());
            open.push((end, label, length, 0.0));
        }
        while !open.is_empty() {
            close(&mut open);
        }
    }
    totals
}
