#!/usr/bin/env python3
"""Compile time of a user's crate of 100 tools: agboss beside rig-core, same DTOs, same steps.

    python3 benches/compile/compile_bench.py gen            # writes the two crates only
    python3 benches/compile/compile_bench.py run [--runs 3] [--cold] [--steps a,b]
    python3 benches/compile/compile_bench.py profile [--step build-one-description]

The crates go to target/compile-bench/{agboss,rig} (each its own `[workspace]`), built in one
target directory of their own (/work/target-compile-bench/shared unless COMPILE_BENCH_TARGET is
set); `--cold` first times one `cargo check` of each from an empty target directory. Each
incremental step edits the crate, then runs cargo, A and B alternated (A B, then B A, ..). The
medians and the ratio agboss / rig are printed as a markdown table with the load average.
See README.md beside this file.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "target" / "compile-bench"
TARGET = Path(os.environ.get("COMPILE_BENCH_TARGET", "/work/target-compile-bench"))
TOOLS = 100
FILES = 10  # tools spread over 10 modules of 10
RIG_VERSION = "0.44"

# Both crates get the same profile: the one the agboss workspace uses (line tables for the
# crate, no debug info for dependencies), which keeps the target directory small.
PROFILE = """
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false
"""


# The shared library of agboss, beside the facade, named in `main.rs` (crates/agboss-dylib).
DYLIB = 'agboss-dylib = {{ path = "{dylib}" }}\n'

# The lean build of the facade: one provider's wire format, no CLI, MCP, knowledge bases,
# SQLite or configuration files (docs/performance.md).
LEAN = ', default-features = false, features = ["openai"]'


def extra_field(dto_variant):
    """The field every DTO gains in the 'every DTO changed' state."""
    if dto_variant == 0:
        return ""
    return """    /// A revision number, added to every DTO by the benchmark.
    pub revision: Option<u32>,
"""


def dtos(i, derive, dto_variant):
    """The three DTOs of tool `i`: a nested place, the input, the output."""
    extra = extra_field(dto_variant)
    return f"""
/// A place the lookup of tool {i} is narrowed to.
{derive}
pub struct Place{i} {{
    /// The street.
    pub street: String,
    /// The city.
    #[schemars(length(min = 1, max = 80))]
    pub city: String,
{extra}}}

/// What tool {i} is asked.
{derive}
pub struct Input{i} {{
    /// The words to look for.
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
    /// How many results at most.
    #[schemars(range(min = 1, max = 50))]
    pub limit: u32,
    /// A page token from an earlier answer.
    pub page: Option<String>,
    /// Tags the results must carry.
    pub tags: Vec<String>,
    /// Where to look.
    pub place: Place{i},
{extra}}}

/// What tool {i} answers.
{derive}
pub struct Output{i} {{
    /// The items found.
    pub items: Vec<String>,
    /// How many there are in all.
    pub total: u64,
    /// The token of the next page, if any.
    pub next: Option<String>,
    /// Where they were found.
    pub place: Place{i},
{extra}}}
"""


def body(i, dto_variant):
    extra = "revision: input.revision, " if dto_variant else ""
    return (
        f"Ok(Output{i} {{ items: input.tags, total: u64::from(input.limit), "
        f"next: input.page, place: input.place, {extra}}})"
    )


def description(i, desc_variant):
    if i == 0 and desc_variant:
        return f"Looks things up, the {i}th way (edited)"
    return f"Looks things up, the {i}th way"


def agboss_tool(i, dto_variant, desc_variant):
    return dtos(i, "#[dto]", dto_variant) + f"""
#[tool(name = "lookup-{i}-tool", description = "{description(i, desc_variant)}")]
pub struct Lookup{i};

impl ToolHandler for Lookup{i} {{
    type Input = Input{i};
    type Output = Output{i};

    async fn run(&self, input: Input{i}) -> Result<Output{i}, ToolError> {{
        {body(i, dto_variant)}
    }}
}}
"""


# The derives of `rig-long` (`--rig-long`): rig's, through a path as long as the facade's
# `::agboss::__private::serde`, in the derive names and in `crate = ..`, as `#[dto]` writes them.
LONG = "crate::__p::__q"
LONG_DERIVE = (
    f"#[derive({LONG}::serde::Serialize, {LONG}::serde::Deserialize, {LONG}::schemars::JsonSchema)]\n"
    f'#[serde(crate = "{LONG}::serde")]\n#[schemars(crate = "{LONG}::schemars")]\n'
    "#[serde(deny_unknown_fields)]"
)


def rig_tool(i, dto_variant, desc_variant, long=False):
    derive = "#[derive(Serialize, Deserialize, JsonSchema)]\n#[serde(deny_unknown_fields)]"
    if long:
        derive = LONG_DERIVE
    return dtos(i, derive, dto_variant) + f"""
pub struct Lookup{i};

impl Tool for Lookup{i} {{
    const NAME: &'static str = "lookup-{i}-tool";
    type Args = Input{i};
    type Output = Output{i};
    type Error = Failed;

    fn description(&self) -> String {{
        "{description(i, desc_variant)}".to_string()
    }}

    fn parameters(&self) -> serde_json::Value {{
        serde_json::to_value(schemars::schema_for!(Input{i})).expect("a schema is JSON")
    }}

    async fn call(&self, _context: &mut ToolContext, input: Input{i}) -> Result<Output{i}, Failed> {{
        {body(i, dto_variant)}
    }}
}}
"""


def module_range(m):
    per = TOOLS // FILES
    return range(m * per, (m + 1) * per)


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_agboss(state, name="agboss", facade=REPO / "crates" / "agboss", lean=False, dynamic=False):
    root = OUT / name
    if not (root / "Cargo.lock").exists():  # the workspace's versions of every dependency
        root.mkdir(parents=True, exist_ok=True)
        shutil.copy(facade.parents[1] / "Cargo.lock", root / "Cargo.lock")
    write(root / "Cargo.toml", f"""[package]
name = "bench-{name}"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
agboss = {{ path = "{facade}"{LEAN if lean else ""} }}
{DYLIB.format(dylib=facade.parent / "agboss-dylib") if dynamic else ""}{PROFILE}""")
    mods = "\n".join(f"mod tools_{m};" for m in range(FILES))
    linked = "\nuse agboss_dylib as _;\n" if dynamic else ""
    write(root / "src" / "main.rs", f"""//! {TOOLS} tools and their DTOs, for the compile-time benchmark (edit {state['comment']}).
{linked}
{mods}

fn main() {{
    for registration in agboss::tool::registered_tools() {{
        println!("{{registration:?}}");
    }}
}}
""")
    for m in range(FILES):
        text = "use agboss::prelude::*;\n" + "".join(
            agboss_tool(i, state["dto"], state["desc"]) for i in module_range(m)
        )
        write(root / "src" / f"tools_{m}.rs", text)


def write_rig(state, name="rig", long=False):
    """rig's crate; with `long`, its derives name serde and schemars through a long path
    (`LONG`), re-exported by a hidden module, so that the cost of the facade's path in the
    derives can be told apart from the rest of `#[dto]`."""
    root = OUT / name
    write(root / "Cargo.toml", f"""[package]
name = "bench-{name}"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
rig-core = "{RIG_VERSION}"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
{PROFILE}""")
    mods = "\n".join(f"mod tools_{m};" for m in range(FILES))
    handlers = "\n".join(
        f"        ErasedHandler::new(ToolAdapter::new(tools_{m}::Lookup{i})),"
        for m in range(FILES)
        for i in module_range(m)
    )
    write(root / "src" / "main.rs", f"""//! {TOOLS} tools and their DTOs, for the compile-time benchmark (edit {state['comment']}).

use rig_core::serve::ErasedHandler;
use rig_core::serve::adapters::ToolAdapter;
{REEXPORTS if long else ""}
{mods}

/// What a tool of the benchmark fails with.
#[derive(Debug)]
pub struct Failed;

impl std::fmt::Display for Failed {{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{
        f.write_str("failed")
    }}
}}

impl std::error::Error for Failed {{}}

fn main() {{
    let handlers = vec![
{handlers}
    ];
    for handler in &handlers {{
        println!("{{:?}}", handler.descriptor());
    }}
}}
""")
    for m in range(FILES):
        text = (
            "use rig_core::tool::{Tool, ToolContext};\n"
            + ("" if long else "use schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n")
            + "\nuse crate::Failed;\n"
            + "".join(rig_tool(i, state["dto"], state["desc"], long) for i in module_range(m))
        )
        write(root / "src" / f"tools_{m}.rs", text)


# What `rig-long`'s `main.rs` declares for `LONG`.
REEXPORTS = """
#[doc(hidden)]
pub mod __p {
    pub mod __q {
        pub use ::schemars;
        pub use ::serde;
    }
}
"""

WRITERS = {"agboss": write_agboss, "rig": write_rig}
STATE = {}


def set_agboss(facade):
    """The `agboss` crate on another tree's facade (a snapshot of a change being measured)."""
    facade = Path(facade).resolve()
    WRITERS["agboss"] = lambda state: write_agboss(state, "agboss", facade)


def add_dynamic(facade, lean=False):
    """A crate `agboss-dynamic`: the `agboss` crate linked against agboss as a shared library
    (`agboss-dylib` beside the facade), as an application does in development builds; with
    `lean`, `agboss-lean-dynamic` instead, the lean crate linked so. Not both: cargo names a
    dylib without a hash, so the two builds of `agboss-dylib` (their features differ) would
    replace each other's `libagboss_dylib.so` in the shared target directory, and each would
    be built again at every turn."""
    facade = Path(facade).resolve()
    name = "agboss-lean-dynamic" if lean else "agboss-dynamic"
    WRITERS[name] = lambda state: write_agboss(state, name, facade, lean=lean, dynamic=True)


def add_lean(facade):
    """A crate `agboss-lean`: the `agboss` crate on the lean facade (`LEAN`), which a crate that
    calls one provider asks for."""
    facade = Path(facade).resolve()
    WRITERS["agboss-lean"] = lambda state: write_agboss(state, "agboss-lean", facade, lean=True)


def add_base(facade):
    """A third crate, `agboss-base`, on another tree's facade (the build before a change)."""
    facade = Path(facade).resolve()
    WRITERS["agboss-base"] = lambda state: write_agboss(state, "agboss-base", facade)


def add_rig_long():
    """A crate `rig-long`: rig's, its derives through a path as long as the facade's."""
    WRITERS["rig-long"] = lambda state: write_rig(state, "rig-long", long=True)


def configure(args):
    """The crates `args` ask for (`--agboss`, `--base`, `--lean`, `--dynamic`, `--rig-long`), written in
    their first state."""
    if args.agboss:
        set_agboss(args.agboss)
    if args.base:
        add_base(args.base)
    if args.lean:
        add_lean(args.agboss or REPO / "crates" / "agboss")
    if args.dynamic:
        add_dynamic(args.agboss or REPO / "crates" / "agboss", lean=args.lean)
    if args.rig_long:
        add_rig_long()
    reset_states()


def reset_states():
    for name in WRITERS:
        STATE[name] = {"comment": 0, "dto": 0, "desc": 0}
        WRITERS[name](STATE[name])

# step: (what is edited, the cargo command)
STEPS = {
    "check-comment": ("comment", "check"),
    "check-every-dto": ("dto", "check"),
    "build-one-description": ("desc", "build"),
    "build-every-dto": ("dto", "build"),
}


def cargo(name, command, target):
    """Runs cargo on crate `name`; its wall-clock time, and the CPU time (user + system) of
    cargo and everything it ran, which the machine's other load changes far less."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(
        ["cargo", command, "--quiet", "--manifest-path", str(OUT / name / "Cargo.toml")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"cargo {command} of {name} failed:\n{done.stderr}")
    return elapsed, cpu


def edit(name, what):
    state = STATE[name]
    state[what] = state[what] + 1 if what == "comment" else 1 - state[what]
    WRITERS[name](state)


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(rows, names):
    """Medians and ratios to rig: wall clock, then CPU time; then the fastest run of each
    crate's CPU time, which the machine's other load inflates least (a step's work is the
    same in every run, so its shortest run is the one least disturbed)."""
    others = [n for n in names if n != "rig"]
    head = " | ".join(f"{n} (s)" for n in names)
    ratios = " | ".join(f"{n} / rig" for n in others)
    tables = (
        ("wall clock, medians", "wall", statistics.median),
        ("CPU time (user + system), medians", "cpu", statistics.median),
        ("CPU time (user + system), fastest run", "cpu", min),
    )
    for label, key, pick in tables:
        print(f"\n{label}\n\n| step | {head} | {ratios} | runs | load before |")
        print("|---|" + "---|" * (len(names) + len(others) + 2))
        for step, times, loads in rows:
            picked = {n: pick(times[n][key]) for n in names}
            cells = " | ".join(f"{picked[n]:.2f}" for n in names)
            rcells = " | ".join(f"**{picked[n] / picked['rig']:.2f}x**" for n in others)
            runs = len(times["rig"][key])
            print(f"| {step} | {cells} | {rcells} | {runs} | {loads[0]} |")
    sys.stdout.flush()


def timed(name, command, target, times):
    """One timed run of `command` on `name`, recorded in `times[name]`."""
    wall, cpu = cargo(name, command, target)
    times[name]["wall"].append(wall)
    times[name]["cpu"].append(cpu)
    return wall


def run(args):
    configure(args)
    order = list(WRITERS)
    rows = []
    if args.cold:
        cold = TARGET / "cold"
        cold_order = list(order)
        times, loads = {n: {"wall": [], "cpu": []} for n in cold_order}, [load()]
        for name in cold_order:
            shutil.rmtree(cold, ignore_errors=True)
            wall = timed(name, "check", cold, times)
            print(f"cold-check {name}: {wall:.1f} s (load {load()})", flush=True)
        shutil.rmtree(cold, ignore_errors=True)
        rows.append(("cold-check", times, loads))
        report(rows, cold_order)
        rows.clear()
    shared = TARGET / "shared"
    steps = [] if args.steps == "none" else args.steps.split(",") if args.steps else list(STEPS)
    for step in steps:
        what, command = STEPS[step]
        for name in order:  # the untimed baseline of this command
            cargo(name, command, shared)
        times, loads = {n: {"wall": [], "cpu": []} for n in order}, []
        for r in range(args.runs):
            loads.append(load())
            for name in order if r % 2 == 0 else list(reversed(order)):
                edit(name, what)
                wall = timed(name, command, shared, times)
                cpu = times[name]["cpu"][-1]
                print(f"{step} {name} run {r + 1}: {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
        rows.append((step, times, loads))
        report(rows, order)


def rustc_profiled(name, command, into):
    """`cargo rustc` of crate `name` under `-Z self-profile`, its profile moved to `into`. The
    profile's directory is always the same path: it is part of the command line, and cargo
    builds a crate again from scratch when its command line changes."""
    scratch = TARGET / "self-profile"
    shutil.rmtree(scratch, ignore_errors=True)
    profile = "check" if command == "check" else "dev"
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET / "shared"), RUSTC_BOOTSTRAP="1")
    subprocess.run(
        ["cargo", "rustc", "--quiet", "--profile", profile, "--manifest-path",
         str(OUT / name / "Cargo.toml"), "--", f"-Zself-profile={scratch}",
         "-Zself-profile-events=default,args"],
        env=env, stdout=subprocess.DEVNULL, check=True,
    )
    if into is None:
        shutil.rmtree(scratch, ignore_errors=True)
        return None
    shutil.rmtree(into, ignore_errors=True)
    shutil.move(scratch, into)
    (found,) = Path(into).glob("*.mm_profdata")
    return str(found)[: -len(".mm_profdata")]


def profile(args):
    """Each crate's `-Z self-profile` of one incremental step (built once under the same
    command line first, so that the step is incremental as in `run`), and the self time of
    each activity and query, the crates side by side (`self-time`, beside this file)."""
    configure(args)
    what, command = STEPS[args.step]
    profiles = {}
    for name in WRITERS:
        rustc_profiled(name, command, None)
        edit(name, what)
        profiles[name] = rustc_profiled(name, command, TARGET / "profiles" / f"{name}-{args.step}")
        edit(name, what)
        rustc_profiled(name, command, None)
        print(f"{args.step} {name}: {profiles[name]}.mm_profdata", flush=True)
    tool = Path(__file__).resolve().parent / "self-time" / "Cargo.toml"
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET / "self-time"))
    for name in WRITERS:
        if name == "rig":
            continue
        print(f"\nrig | {name}, {args.step}", flush=True)
        subprocess.run(
            ["cargo", "run", "--quiet", "--release", "--manifest-path", str(tool), "--",
             profiles["rig"], profiles[name]],
            env=env, check=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("gen", help="write the two crates")
    r = sub.add_parser("run", help="time the steps")
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--cold", action="store_true", help="also time a cold `cargo check` of each")
    r.add_argument("--steps", help="comma-separated: " + ", ".join(STEPS) + "; none for --cold alone")
    pr = sub.add_parser("profile", help="the self time of each query in one step, `-Z self-profile`")
    pr.add_argument("--step", choices=list(STEPS), default="build-one-description")
    for p in sub.choices.values():
        p.add_argument("--base", help="also a crate on this tree's facade (crates/agboss)")
        p.add_argument("--agboss", help="the agboss crate on this facade, not this tree's")
        p.add_argument(
            "--lean",
            action="store_true",
            help="also `agboss-lean`: the crate on the facade without default features but `openai`",
        )
        p.add_argument(
            "--dynamic",
            action="store_true",
            help="also `agboss-dynamic`: the crate linked against agboss-dylib beside the facade",
        )
        p.add_argument(
            "--rig-long",
            action="store_true",
            help="also `rig-long`: rig's crate, its derives through a path as long as the facade's",
        )
    args = parser.parse_args()
    if args.command == "gen":
        configure(args)
        print(f"wrote {', '.join(str(OUT / n) for n in WRITERS)}")
    elif args.command == "profile":
        profile(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
