//! Values with units in attributes: `seconds(10)`, `kilobytes(256)`. A bare number is refused.

use agboss_rules::codes;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ctxt::error_at;
use syn::{Expr, ExprCall, Lit};

/// A checked time span: the user's own unit function (so their `use agboss::units::seconds`
/// is used, and resolves as any Rust path does) called with the checked amount.
pub struct TimeSpanValue {
    tokens: TokenStream,
}

/// A checked byte size, emitted through the user's unit function like [`TimeSpanValue`].
pub struct ByteSizeValue {
    tokens: TokenStream,
}

/// Parses `millis(n)`, `seconds(n)`, `minutes(n)`, `hours(n)` or `days(n)`.
pub fn time_span(expr: &Expr, key: &str) -> darling::Result<TimeSpanValue> {
    let call = unit_call(
        expr,
        key,
        &format!(
            "a bare number is not a time span: write it with its unit, {}",
            match key {
                "expires_after" => "`hours(24)` or `minutes(90)`",
                "max_duration" => "`minutes(2)` or `seconds(120)`",
                _ => "`seconds(10)` or `millis(500)`",
            }
        ),
    )?;
    let (function, arg) = call_parts(call, key)?;
    let func = &call.func;
    match function.as_str() {
        "millis" | "seconds" | "minutes" | "hours" | "days" => {}
        other => {
            return Err(error_at(
                &call.func,
                format!(
                    "`{other}` is not a unit of time: use `millis(..)`, `seconds(..)`, `minutes(..)`, `hours(..)` or `days(..)`"
                ),
            ));
        }
    };
    let amount = match literal(arg) {
        Some(Lit::Int(int)) => {
            let n: u64 = int.base10_parse()?;
            if n == 0 {
                return Err(error_at(
                    &arg,
                    format!("{}: give at least `{}`", zero_span(key), least(key)),
                ));
            }
            quote!(#func(#n))
        }
        Some(Lit::Float(_)) => {
            return Err(error_at(
                &arg,
                format!(
                    "`{function}` takes a whole number: write a fraction in a smaller unit, such as `millis(1500)`"
                ),
            ));
        }
        Some(other) => {
            return Err(error_at(
                &other,
                format!("`{function}` takes a whole number"),
            ));
        }
        // A constant or const expression: checked when the descriptor is evaluated.
        None => {
            let message = zero_span(key);
            quote_spanned!(arg.span()=> {
                const __AGBOSS_AMOUNT: u64 = #arg;
                ::core::assert!(__AGBOSS_AMOUNT > 0, #message);
                #func(__AGBOSS_AMOUNT)
            })
        }
    };
    Ok(TimeSpanValue { tokens: amount })
}

/// Parses `bytes(n)`, `kilobytes(n)` (a whole number of bytes, so `kilobytes(0.5)` is allowed)
/// or `megabytes(n)`.
pub fn byte_size(expr: &Expr, key: &str) -> darling::Result<ByteSizeValue> {
    let call = unit_call(
        expr,
        key,
        &size_invalid(
            key,
            &format!(
                "a bare number is not a size: write it with its unit, `{}` or `bytes(1000)`",
                example(key)
            ),
        ),
    )?;
    let (function, arg) = call_parts(call, key)?;
    let func = &call.func;
    let per_unit: u64 = match function.as_str() {
        "bytes" => 1,
        "kilobytes" => 1024,
        "megabytes" => 1024 * 1024,
        other => {
            return Err(error_at(
                &call.func,
                size_invalid(
                    key,
                    &format!(
                        "`{other}` is not a unit of size: use `bytes(..)`, `kilobytes(..)` or `megabytes(..)`"
                    ),
                ),
            ));
        }
    };
    let written = call.to_token_stream().to_string().replace(' ', "");
    let invalid =
        |message: String| error_at(&arg, size_invalid(key, &format!("`{written}` {message}")));
    let (bytes, whole_units) = match literal(arg) {
        Some(Lit::Int(int)) => {
            let n: u64 = int.base10_parse()?;
            let bytes = n
                .checked_mul(per_unit)
                .ok_or_else(|| invalid("does not fit in 64 bits".into()))?;
            (bytes, Some(n))
        }
        Some(Lit::Float(float)) => {
            let n: f64 = float.base10_parse()?;
            let bytes = n * per_unit as f64;
            if bytes.fract() != 0.0 {
                return Err(invalid(format!(
                    "is {bytes} bytes, not a whole number of bytes: give whole bytes, such as `bytes({})`",
                    bytes.floor().max(1.0)
                )));
            }
            if !(0.0..u64::MAX as f64).contains(&bytes) {
                return Err(invalid("does not fit in 64 bits".into()));
            }
            (bytes as u64, None)
        }
        Some(other) => {
            return Err(error_at(
                &other,
                size_invalid(key, &format!("`{function}` takes a number")),
            ));
        }
        None => {
            let message = size_invalid(key, "a bound keeps at least 1 byte");
            let tokens = quote_spanned!(arg.span()=> {
                const __AGBOSS_AMOUNT: u64 = #arg;
                ::core::assert!(__AGBOSS_AMOUNT > 0, #message);
                #func(__AGBOSS_AMOUNT)
            });
            return Ok(ByteSizeValue { tokens });
        }
    };
    if bytes == 0 {
        let least = match key {
            "history_max_size" => "kilobytes(8)",
            "artifact_above" => "kilobytes(16)",
            _ => "kilobytes(64)",
        };
        return Err(invalid(format!(
            "keeps nothing: a bound keeps at least 1 byte, such as `{least}`"
        )));
    }
    let tokens = match whole_units {
        Some(n) => quote!(#func(#n)),
        // `kilobytes(0.5)`: the unit function takes whole units, so the checked byte count is
        // emitted; naming the function still checks it is agboss's and uses the import.
        None => quote!({
            let _: fn(u64) -> __AGBOSS_PRIVATE::ByteSize = #func;
            __AGBOSS_PRIVATE::bytes(#bytes)
        }),
    };
    Ok(ByteSizeValue { tokens })
}

impl TimeSpanValue {
    /// The `TimeSpan` constant expression.
    pub fn to_tokens(&self) -> TokenStream {
        self.tokens.clone()
    }
}

impl ByteSizeValue {
    /// The `ByteSize` constant expression, the runtime's types reached through `private`.
    pub fn to_tokens(&self, private: &TokenStream) -> TokenStream {
        let tokens = &self.tokens;
        quote!({
            #[allow(unused_imports)]
            use #private as __AGBOSS_PRIVATE;
            #tokens
        })
    }
}

/// For an attribute that failed: a use of the unit function in `expr` when it is one of
/// `units`, so that the user's `use agboss::units::seconds` is not also reported unused.
pub fn keep_unit_import(expr: &Expr, units: &[&str]) -> TokenStream {
    let Expr::Call(call) = strip(expr) else {
        return TokenStream::new();
    };
    let Expr::Path(path) = strip(&call.func) else {
        return TokenStream::new();
    };
    match path.path.segments.last() {
        Some(last) if units.contains(&last.ident.to_string().as_str()) => {
            quote!(const _: () = { let _ = #path; };)
        }
        _ => TokenStream::new(),
    }
}

/// The finding about the bound `key`, saying `reason`: `[agent.history-max-size-invalid]` for an
/// agent's `history_max_size`, `[tool.result-ceiling-invalid]` for a tool's ceiling,
/// `[tool.max-argument-size-invalid]` for a tool's limit on arguments,
/// `[tools.max-result-size-invalid]` for a tool's bound.
fn size_invalid(key: &str, reason: &str) -> String {
    let code = match key {
        "history_max_size" => &codes::AGENT_HISTORY_MAX_SIZE_INVALID,
        "result_ceiling" => &codes::TOOL_RESULT_CEILING_INVALID,
        "max_argument_size" => &codes::TOOL_MAX_ARGUMENT_SIZE_INVALID,
        "artifact_above" => &codes::TOOL_ARTIFACT_ABOVE_INVALID,
        _ => &codes::TOOLS_MAX_RESULT_SIZE_INVALID,
    };
    code.finding(&[("owner", &format!("`{key}`")), ("reason", &reason)])
        .to_string()
}

fn unit_call<'e>(expr: &'e Expr, key: &str, bare: &str) -> darling::Result<&'e ExprCall> {
    match strip(expr) {
        Expr::Call(call) => Ok(call),
        Expr::Lit(lit) => Err(error_at(&lit, bare)),
        other => Err(error_at(
            &other,
            format!(
                "`{key}` takes a value with its unit, such as `{}`",
                example(key)
            ),
        )),
    }
}

fn call_parts<'c>(call: &'c ExprCall, key: &str) -> darling::Result<(String, &'c Expr)> {
    let Expr::Path(path) = strip(&call.func) else {
        return Err(error_at(
            &call.func,
            format!("`{key}` takes a unit function, such as `{}`", example(key)),
        ));
    };
    let function = path
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    if call.args.len() != 1 {
        return Err(error_at(
            &call.args,
            format!("`{function}` takes one number"),
        ));
    }
    Ok((function, &call.args[0]))
}

fn literal(expr: &Expr) -> Option<&Lit> {
    match strip(expr) {
        Expr::Lit(lit) => Some(&lit.lit),
        _ => None,
    }
}

/// `expr` without the parentheses and invisible groups around it.
pub fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => strip(&group.expr),
        Expr::Paren(paren) => strip(&paren.expr),
        other => other,
    }
}

fn example(key: &str) -> &'static str {
    match key {
        "timeout" => "seconds(10)",
        "expires_after" => "hours(24)",
        "max_duration" => "minutes(2)",
        "history_max_size" => "kilobytes(8)",
        "result_ceiling" => "kilobytes(64)",
        "max_argument_size" => "megabytes(4)",
        "artifact_above" => "kilobytes(16)",
        _ => "kilobytes(256)",
    }
}

/// What a span of zero would do, for the time span `key`.
fn zero_span(key: &str) -> String {
    match key {
        "expires_after" => "an `expires_after` of zero would expire every pause at once".to_owned(),
        "max_duration" => {
            "a `max_duration` of zero would end every run before its first model call".to_owned()
        }
        _ => format!("a {key} of zero would end every call at once"),
    }
}

/// The least span worth giving `key`.
fn least(key: &str) -> &'static str {
    match key {
        "expires_after" => "minutes(1)",
        "max_duration" => "seconds(1)",
        _ => "millis(1)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_error(expr: Expr, key: &str) -> String {
        match time_span(&expr, key) {
            Ok(_) => panic!("{key} accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn units_of_time_are_listed_when_one_is_not() {
        assert_eq!(
            span_error(syn::parse_quote!(weeks(1)), "expires_after"),
            "`weeks` is not a unit of time: use `millis(..)`, `seconds(..)`, `minutes(..)`, `hours(..)` or `days(..)`"
        );
        assert!(time_span(&syn::parse_quote!(hours(24)), "expires_after").is_ok());
        assert!(time_span(&syn::parse_quote!(days(3)), "timeout").is_ok());
    }

    #[test]
    fn an_expiry_of_zero_or_without_unit_says_so_for_pauses() {
        assert_eq!(
            span_error(syn::parse_quote!(minutes(0)), "expires_after"),
            "an `expires_after` of zero would expire every pause at once: give at least `minutes(1)`"
        );
        assert_eq!(
            span_error(syn::parse_quote!(seconds(0)), "timeout"),
            "a timeout of zero would end every call at once: give at least `millis(1)`"
        );
        assert_eq!(
            span_error(syn::parse_quote!(24), "expires_after"),
            "a bare number is not a time span: write it with its unit, `hours(24)` or `minutes(90)`"
        );
    }
}
