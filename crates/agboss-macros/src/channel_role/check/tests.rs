//! The check stage of `#[channel_role]`: the resolved role, or every problem at once.

use quote::quote;

use super::*;
use crate::channel_role::CHANNEL_ROLE;
use crate::fields::written_type;

#[test]
fn an_approval_role_reads_its_dto_and_answerer() {
    let role = CHANNEL_ROLE.resolve(
        quote!(
            name = "refund-approval-channel",
            approves = RefundInput,
            answered_by = PauseAnswerer::Channel
        ),
        quote! {
            /// Approves card refunds.
            pub struct RefundApproval;
        },
    );
    assert_eq!(role.header.name, "refund-approval-channel");
    assert_eq!(role.header.description, "Approves card refunds.");
    assert_eq!(role.answered_by.answerer, Answerer::Channel);
    assert!(role.answered_by.written.is_some(), "emitted as written");
    let Form::Approval { approves } = role.form else {
        panic!("an approval role")
    };
    assert_eq!(written_type(&approves), "RefundInput");
}

#[test]
fn a_question_role_reads_both_types() {
    let role = CHANNEL_ROLE.resolve(
        quote!(
            name = "budget-question-channel",
            description = "Asks for a budget",
            ask = BudgetAsk,
            answer = BudgetAnswer,
            answered_by = ThreadOwner,
            reply_interpreter = BudgetReader
        ),
        quote!(
            pub struct BudgetQuestion;
        ),
    );
    assert_eq!(role.answered_by.answerer, Answerer::ThreadOwner);
    assert!(role.answered_by.written.is_none());
    assert!(role.reply_interpreter.is_some());
    let Form::Question { ask, answer } = role.form else {
        panic!("a question role")
    };
    assert_eq!(
        (written_type(&ask), written_type(&answer)),
        ("BudgetAsk".to_owned(), "BudgetAnswer".to_owned())
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let problems = CHANNEL_ROLE.problems(
        quote!(
            name = "RefundApproval",
            approves = RefundInput,
            ask = Question,
            answered_by = Owner
        ),
        quote!(
            pub struct RefundApproval {
                x: u8,
            }
        ),
    );
    let lines: Vec<&str> = problems.lines().collect();
    assert_eq!(lines.len(), 5, "{problems}");
    assert!(lines[0].starts_with("[name.kind-suffix]"), "{problems}");
    assert!(
        lines[0].ends_with("name it \"refund-approval-channel\""),
        "{problems}"
    );
    assert!(lines[1].starts_with("#[channel_role] needs a description"));
    assert!(
        lines[2].starts_with("unknown `answered_by` value `Owner`: did you mean `ThreadOwner`?"),
        "{problems}"
    );
    assert!(lines[3].starts_with("[channel.role-form]"), "{problems}");
    assert!(
        lines[3].ends_with("remove `approves` or `ask`"),
        "{problems}"
    );
    assert!(lines[4].starts_with("a channel role is a unit struct"));
}

#[test]
fn neither_form_nor_answerer_says_what_to_add() {
    let problems = CHANNEL_ROLE.problems(
        quote!(name = "refund-approval-channel", description = "Approves"),
        quote!(
            pub struct RefundApproval;
        ),
    );
    let lines: Vec<&str> = problems.lines().collect();
    assert_eq!(lines.len(), 2, "{problems}");
    assert!(lines[0].starts_with("#[channel_role] needs `answered_by`, which has no default"));
    assert!(lines[0].contains("`answered_by = ThreadOwner`"));
    assert!(lines[0].contains("`answered_by = Channel`"));
    assert!(lines[1].starts_with("[channel.role-form] #[channel_role] needs a form"));
}

#[test]
fn ask_without_answer_names_the_missing_key() {
    let problems = CHANNEL_ROLE.problems(
        quote!(
            name = "budget-channel",
            description = "Asks",
            answered_by = ThreadOwner,
            answer = BudgetAnswer
        ),
        quote!(
            pub struct Budget;
        ),
    );
    assert!(
        problems.starts_with("`answer` without `ask`: a question role gives both"),
        "{problems}"
    );
}

#[test]
fn answered_by_must_name_a_pause_answerer() {
    let cases = [
        (quote!(Who::Channel), "or `PauseAnswerer::Channel`"),
        // darling reads a string as the expression inside it.
        (
            quote!("thread_owner"),
            "unknown `answered_by` value `thread_owner`: did you mean `ThreadOwner`?",
        ),
        (
            quote!(owner()),
            "written as a name: `answered_by = ThreadOwner`",
        ),
    ];
    for (answered_by, says) in cases {
        let problems = CHANNEL_ROLE.problems(
            quote!(
                name = "budget-channel",
                description = "Asks",
                answered_by = #answered_by,
                approves = Input
            ),
            quote!(
                pub struct Budget;
            ),
        );
        assert!(problems.contains(says), "{problems}");
    }
}
