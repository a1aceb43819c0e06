//! The representative items: each macro's keys all given, its described-by-doc form, and its
//! expansion on failure (the item, the errors, what is kept).

use quote::quote;

use super::check;

#[test]
fn tools() {
    check(
        "tool-every-key",
        "tool",
        quote!(
            name = "search-issues-tool",
            description = "Search the team's issues",
            timeout = seconds(10),
            max_result_size = kilobytes(0.5),
            read_only = true,
            channel = RefundApproval,
            on_crash = ask,
            crate = my::agboss
        ),
        quote! {
            pub struct SearchIssues {
                execution: ExecutionContext,
                issues: Arc<dyn IssuesApi>,
            }
        },
    );
    check(
        "tool-described-by-doc",
        "tool",
        quote!(
            name = "tuple-tool",
            timeout = seconds(TIMEOUT_SECS),
            max_result_size = kilobytes(64),
            on_crash = report
        ),
        quote! {
            /// Fields by position.
            pub struct TupleTool(ExecutionContext, Arc<dyn Api>);
        },
    );
    check(
        "tool-errors",
        "tool",
        quote!(
            name = "Search Issues",
            descripton = "Search",
            timeout = seconds(0),
            max_result_size = kilobytes(0)
        ),
        quote!(
            pub struct SearchIssues<T>(T);
        ),
    );
    check(
        "tool-on-a-fn",
        "tool",
        quote!(name = "search-issues-tool"),
        quote!(
            pub fn search_issues() {}
        ),
    );
}

#[test]
fn mcp_tools() {
    check(
        "mcp-tool-pass-through",
        "mcp_tool",
        quote!(
            name = "read-note-tool",
            server = NotesServer,
            calls = "read_text_file",
            input = NotePath,
            output = PlainText
        ),
        quote! {
            /// Reads one of the user's notes.
            pub struct ReadNote;
        },
    );
    check(
        "mcp-tool-pass-through-tuple",
        "mcp_tool",
        quote!(
            name = "read-note-tool",
            description = "Reads a note",
            server = fs::NotesServer,
            calls = "read_text_file",
            input = NotePath,
            output = PlainText,
            read_only = true
        ),
        quote!(
            pub struct ReadNote(Clock);
        ),
    );
    check(
        "mcp-tool-handwritten",
        "mcp_tool",
        quote!(
            name = "read-notes-tool",
            description = "Reads one of the user's notes",
            server = NotesServer,
            calls = "read_text_file",
            timeout = seconds(10),
            channel = NoteApproval
        ),
        quote! {
            pub struct ReadNotes {
                notes: McpClient<NotesServer>,
            }
        },
    );
    check(
        "mcp-tool-errors",
        "mcp_tool",
        quote!(name = "read-note-tool", input = NotePath, calls = ""),
        quote!(
            pub struct ReadNote;
        ),
    );
}

#[test]
fn mcp_servers() {
    check(
        "mcp-server-stdio",
        "mcp_server",
        quote!(
            name = "notes-fs",
            command = "npx",
            args = [
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "${NOTES_DIR}"
            ],
            tools = ["read_text_file", "write_file"],
            env = ["NOTES_DIR"],
            crate = my::agboss
        ),
        quote!(
            pub struct NotesServer;
        ),
    );
    check(
        "mcp-server-http",
        "mcp_server",
        quote!(
            name = "notes-http",
            url = "http://127.0.0.1:3001/${PATH}",
            tools = ["read_text_file"],
            env = ["PATH"]
        ),
        quote! {
            /// Notes over HTTP.
            pub struct NotesHttp;
        },
    );
    check(
        "mcp-server-errors",
        "mcp_server",
        quote!(
            name = "Notes FS",
            command = "npx",
            url = "http://x/${HOST}",
            tools = ["a", "a", 3],
            env = ["notes dir"]
        ),
        quote!(
            pub struct NotesServer {
                x: u8,
            }
        ),
    );
}

#[test]
fn agents() {
    check(
        "agent-every-key",
        "agent",
        quote!(
            name = "job-scout",
            description = "Finds jobs that fit the user",
            prompts = ["scout.prompt.md", "rules.prompt.md"],
            model = "openai/gpt-5-mini",
            tools = [SearchIssues, web::FetchPage],
            max_tool_calls = 12,
            thinking = "low",
            history_turns = 3,
            history_summaries = 4,
            history_max_size = kilobytes(8),
            output = JobList,
            tool_choice = "required",
            first_turn_tool_choice = "search-issues-tool",
            max_turns = 9,
            answer_retries = 1,
            crate = my::agboss
        ),
        quote!(
            pub struct Scout;
        ),
    );
    check(
        "agent-described-by-doc",
        "agent",
        quote!(
            name = "notes",
            prompt = "notes.prompt.md",
            model = "moonshotai/kimi-k2.6"
        ),
        quote! {
            /// Keeps the user's notes.
            pub struct Notes;
        },
    );
    check(
        "agent-errors",
        "agent",
        quote!(
            name = "JobScout",
            prompts = ["a.md", 3],
            model = "gpt",
            tools = [1],
            max_tool_calls = 0,
            thinking = "extreme",
            history_max_size = kilobytes(0)
        ),
        quote!(
            pub struct Scout<T>(T);
        ),
    );
}

#[test]
fn channel_roles() {
    check(
        "channel-role-approval",
        "channel_role",
        quote!(
            name = "refund-approval-channel",
            approves = RefundCardInput,
            answered_by = PauseAnswerer::Channel
        ),
        quote! {
            /// Approves card refunds.
            pub struct RefundApproval;
        },
    );
    check(
        "channel-role-question",
        "channel_role",
        quote!(
            name = "budget-question-channel",
            description = "Asks the owner for a project's budget",
            ask = BudgetAsk,
            answer = BudgetAnswer,
            answered_by = ThreadOwner,
            reply_interpreter = BudgetReader,
            expires_after = hours(24),
            crate = my::agboss
        ),
        quote!(
            pub struct BudgetQuestion;
        ),
    );
    check(
        "channel-role-errors",
        "channel_role",
        quote!(
            name = "RefundApproval",
            approves = RefundInput,
            ask = Question,
            answered_by = Owner,
            expires_after = minutes(0)
        ),
        quote!(
            pub struct RefundApproval {
                x: u8,
            }
        ),
    );
}

#[test]
fn channels() {
    check(
        "channel-with-fields",
        "channel",
        quote!(name = "slack-refund-approval-channel", crate = my::agboss),
        quote! {
            /// Asks a finance manager in Slack.
            pub struct SlackRefundApproval {
                execution: ExecutionContext,
                slack: Arc<dyn Slack>,
            }
        },
    );
    check(
        "channel-unit",
        "channel",
        quote!(name = "inbox-channel", description = "Asks in the inbox"),
        quote!(
            pub struct Inbox;
        ),
    );
    check(
        "channel-errors",
        "channel",
        quote!(name = "SlackRefunds", descripton = "Asks"),
        quote!(
            pub struct SlackRefunds<T>(T);
        ),
    );
}

#[test]
fn dtos() {
    check(
        "dto-struct",
        "dto",
        quote!(),
        quote! {
            /// Words to look for.
            pub struct Query {
                /// The words.
                pub query: String,
            }
        },
    );
    check(
        "dto-open-enum",
        "dto",
        quote!(open, crate = my::agboss),
        quote! {
            pub enum Verdict { Yes, No }
        },
    );
    check(
        "dto-errors",
        "dto",
        quote!(opn),
        quote! {
            pub union Bits { a: u8 }
        },
    );
    check(
        "dto-on-a-fn",
        "dto",
        quote!(opn),
        quote!(
            pub fn f() {}
        ),
    );
}
