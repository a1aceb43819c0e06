//! The validator `#[dto]` generates: `impl Conforms` (see `agboss_core::tool::conform`), read
//! from the serde and schemars attributes the type carries.
//!
//! A type is exact when its schema says nothing the generated code does not check: every
//! attribute is one of the few modelled below (renames, defaults, skips, and the `range`,
//! `length`, pattern and format rules), and every field's type is exact in turn (asked at the
//! expansion site through a probe); `#[tool]` asks its handler's input and output the same
//! way. Anything else (`flatten`, `tag`, `untagged`, `alias`,
//! `with`, `extend`, a rule with a computed bound) leaves the type not exact: it is then
//! validated by the schema's checker alone, as every type was before; nothing fails to compile.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, DeriveInput, Fields, Lit, Type};

/// A rule a field's attributes add to its schema.
enum Rule {
    Range(Option<f64>, Option<f64>),
    Length(Option<u64>, Option<u64>),
    Pattern(String),
    Format(&'static str),
}

/// What the generated code knows of one field: its type and its rules; `None` when an
/// attribute is not modelled.
struct Known {
    ty: Type,
    rules: Vec<Rule>,
}

/// Container attributes that change nothing the generated code checks.
const CONTAINER_KEYS: &[&str] = &[
    "rename",
    "rename_all",
    "deny_unknown_fields",
    "crate",
    "default",
    "bound",
    "description",
    "title",
    "example",
    "examples",
    "deprecated",
];

/// Field and variant attributes without a rule that change nothing it checks.
const FIELD_KEYS: &[&str] = &[
    "rename",
    "default",
    "skip",
    "skip_serializing",
    "skip_deserializing",
    "skip_serializing_if",
    "description",
    "title",
    "example",
    "examples",
    "deprecated",
];

/// Attributes of other derives and of the compiler, which the schema does not see.
const FOREIGN: &[&str] = &["doc", "allow", "expect", "warn", "deny", "derive", "repr"];

/// `impl Conforms` for `input`, whose generated serde and schemars code `#[dto]` emits beside.
pub fn generate(private: &TokenStream, input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let conform = quote!(#private::conform);
    let bodies = bodies(&conform, input).unwrap_or_else(|| Bodies {
        exact: quote!(false),
        conforms: quote!(true),
        depth_read: false,
        probes: false,
        rules: false,
    });
    // Only what the bodies call through a probe is imported (method calls need their traits in
    // scope), inside the functions that call it: no `const _` block around the impl, which
    // would be one more item for the compiler to evaluate for each DTO. Plain fields are
    // checked by direct calls or not at all.
    let probes = bodies
        .probes
        .then(|| quote!(#[allow(unused_imports)] use #conform::{Known as _, Unknown as _};));
    let rules = bodies
        .rules
        .then(|| quote!(use #conform::{Measured as _, Ranged as _, Textual as _, Untyped as _};));
    let depth = match bodies.depth_read {
        true => quote!(depth),
        false => quote!(_),
    };
    let probes_in_exact = bodies.depth_read.then(|| probes.clone()).flatten();
    let Bodies {
        exact, conforms, ..
    } = bodies;
    quote! {
        #[automatically_derived]
        impl #impl_generics #conform::Conforms for #ident #ty_generics #where_clause {
            fn exact(#depth: u8) -> bool {
                #probes_in_exact
                #exact
            }

            fn conforms(&self) -> bool {
                #probes
                #rules
                #conforms
            }
        }
    }
}

/// The bodies of `exact` and `conforms`, and what they need in scope.
struct Bodies {
    exact: TokenStream,
    conforms: TokenStream,
    /// `exact` reads its `depth` (it asks a field's type).
    depth_read: bool,
    /// A field's type is asked through a probe.
    probes: bool,
    /// A rule is asked of a type through a probe.
    rules: bool,
}

/// What is written for the fields of one type: their types asked in `exact`, and the
/// imports the checks need.
#[derive(Default)]
struct Written {
    probed: Vec<Type>,
    rules_probed: bool,
}

/// The bodies, or `None` if an attribute is not modelled.
fn bodies(conform: &TokenStream, input: &DeriveInput) -> Option<Bodies> {
    attributes_known(&input.attrs, CONTAINER_KEYS, &mut Vec::new())?;
    let mut written = Written::default();
    let conforms = match &input.data {
        syn::Data::Struct(data) => {
            let (pattern, checks) = fields(conform, &data.fields, &mut written)?;
            match checks.is_empty() {
                true => quote!(true),
                false => quote!(let Self #pattern = self; true #(&& #checks)*),
            }
        }
        syn::Data::Enum(data) => {
            let mut arms = Vec::new();
            for variant in &data.variants {
                attributes_known(&variant.attrs, FIELD_KEYS, &mut Vec::new())?;
                let name = &variant.ident;
                let (pattern, checks) = fields(conform, &variant.fields, &mut written)?;
                match checks.is_empty() {
                    true => arms.push(quote!(Self::#name #pattern => true)),
                    false => arms.push(quote!(Self::#name #pattern => true #(&& #checks)*)),
                }
            }
            match arms.is_empty() {
                true => quote!(true),
                false => quote!(match self { #(#arms,)* }),
            }
        }
        syn::Data::Union(_) => return None,
    };
    let types = &written.probed;
    let exact = match types.is_empty() {
        true => quote!(true),
        false => quote!(depth > 0 #(&& (&&#conform::Probe::<#types>::NEW).exact(depth - 1))*),
    };
    Some(Bodies {
        exact,
        conforms,
        depth_read: !types.is_empty(),
        probes: !types.is_empty(),
        rules: written.rules_probed,
    })
}

/// A destructuring pattern of `fields` (a field without checks bound to `_`) and the checks of
/// each; `None` if an attribute is not modelled.
fn fields(
    conform: &TokenStream,
    fields: &Fields,
    written: &mut Written,
) -> Option<(TokenStream, Vec<TokenStream>)> {
    let mut bindings = Vec::new();
    let mut checks = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let mut rules = Vec::new();
        attributes_known(&field.attrs, FIELD_KEYS, &mut rules)?;
        let known = Known {
            ty: field.ty.clone(),
            rules,
        };
        let name = format_ident!("__field{index}");
        let field_checks = field_checks(conform, &name, &known, written);
        let binding = match field_checks.is_empty() {
            true => quote!(_),
            false => quote!(#name),
        };
        checks.extend(field_checks);
        bindings.push((field.ident.clone(), binding));
    }
    let pattern = match fields {
        Fields::Named(_) => {
            let members = bindings
                .iter()
                .map(|(ident, binding)| quote!(#ident: #binding));
            quote!({ #(#members,)* })
        }
        Fields::Unnamed(_) => {
            let members = bindings.iter().map(|(_, binding)| binding);
            quote!(( #(#members,)* ))
        }
        Fields::Unit => TokenStream::new(),
    };
    Some((pattern, checks))
}

/// What a standard type a DTO's field is written with needs checked, read from how it is
/// written: `None` for any other type, which is asked through a probe.
#[derive(Clone, Copy, PartialEq)]
enum Plain {
    /// An integer, a `String` or a `bool`: serde's reading checks all its schema says.
    Free,
    /// A float: finite (a NaN is written as `null`).
    Finite,
}

/// What a rule can apply to.
#[derive(Clone, Copy, PartialEq)]
enum Base {
    Number,
    Text,
    List,
    Other,
}

/// How `ty` is written, if it is a standard type (`Option` and `Vec` of one too); what
/// the rules can apply to through `Option` (and, for a length, what a `Vec` is).
fn plain(ty: &Type) -> Option<(Plain, Base)> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() || path.path.segments.len() != 1 {
        return None;
    }
    let segment = &path.path.segments[0];
    let name = segment.ident.to_string();
    let inner = || match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(inner) => plain(inner),
            _ => None,
        },
        _ => None,
    };
    let bare = segment.arguments.is_empty();
    match name.as_str() {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" if bare => {
            Some((Plain::Free, Base::Number))
        }
        "f32" | "f64" if bare => Some((Plain::Finite, Base::Number)),
        "String" if bare => Some((Plain::Free, Base::Text)),
        "bool" if bare => Some((Plain::Free, Base::Other)),
        "Option" => inner(),
        "Vec" => inner().map(|(inner, _)| (inner, Base::List)),
        _ => None,
    }
}

/// The checks of `name`'s value: its type's (none for a plain type, a direct call for a float,
/// a probe for any other) and its rules' (direct calls where the rule applies to the plain
/// type, else through a probe, which fails a rule on a type it does not apply to).
fn field_checks(
    conform: &TokenStream,
    name: &syn::Ident,
    known: &Known,
    written: &mut Written,
) -> Vec<TokenStream> {
    let ty = &known.ty;
    let plain = plain(ty);
    let mut checks = Vec::new();
    match plain {
        Some((Plain::Free, _)) => {}
        Some((Plain::Finite, _)) => {
            checks.push(quote!(<#ty as #conform::Conforms>::conforms(#name)));
        }
        None => {
            written.probed.push(ty.clone());
            checks.push(quote!((&&#conform::Probe::<#ty>::NEW).holds(#name)));
        }
    }
    let base = plain.map(|(_, base)| base);
    for rule in &known.rules {
        let (applies, direct, probed) = match rule {
            Rule::Range(min, max) => {
                let (min, max) = (option(min), option(max));
                (
                    Base::Number,
                    quote!(#conform::Ranged::within(#name, #min, #max)),
                    quote!((&&#conform::Rule(#name)).within(#min, #max)),
                )
            }
            Rule::Length(min, max) => {
                let (min, max) = (option(min), option(max));
                let applies = match base {
                    Some(Base::List) => Base::List,
                    _ => Base::Text,
                };
                (
                    applies,
                    quote!(#conform::Measured::measured(#name, #min, #max)),
                    quote!((&&#conform::Rule(#name)).measured(#min, #max)),
                )
            }
            Rule::Pattern(_) | Rule::Format(_) => {
                let rule = match rule {
                    Rule::Pattern(pattern) => quote!(#conform::StringRule::pattern(#pattern)),
                    Rule::Format(format) => quote!(#conform::StringRule::format(#format)),
                    _ => unreachable!(),
                };
                (
                    Base::Text,
                    quote!({
                        static RULE: #conform::StringRule = #rule;
                        #conform::Textual::meets(#name, &RULE)
                    }),
                    quote!({
                        static RULE: #conform::StringRule = #rule;
                        (&&#conform::Rule(#name)).meets(&RULE)
                    }),
                )
            }
        };
        if base == Some(applies) {
            checks.push(direct);
        } else {
            written.rules_probed = true;
            checks.push(probed);
        }
    }
    checks
}

/// Whether every attribute of `attrs` is modelled (`keys` being the plain keys allowed in its
/// position), pushing the rules found on `rules`; `None` if one is not.
fn attributes_known(attrs: &[Attribute], keys: &[&str], rules: &mut Vec<Rule>) -> Option<()> {
    for attr in attrs {
        let path = attr.path();
        if FOREIGN.iter().any(|name| path.is_ident(name)) {
            continue;
        }
        let rules_allowed = path.is_ident("schemars") || path.is_ident("validate");
        if !(rules_allowed || path.is_ident("serde")) {
            return None;
        }
        let mut known = true;
        let parsed = attr.parse_nested_meta(|meta| {
            if rules_allowed && let Some(rule) = rule_of(&meta)? {
                rules.push(rule);
                return Ok(());
            }
            let allowed = keys.iter().any(|key| meta.path.is_ident(key));
            if !allowed {
                known = false;
            }
            skip_value(&meta)
        });
        if parsed.is_err() || !known {
            return None;
        }
    }
    Some(())
}

/// Reads past `meta`'s value (`= expr` or `(..)`), if any.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// The rule `meta` writes, if it is one the generated code checks; an error if it is one with
/// a bound that is not a literal (the caller then leaves the type not exact).
fn rule_of(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Rule>> {
    let is = |name| meta.path.is_ident(name);
    if is("email") || is("url") {
        if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
            return Err(meta.error("a format with arguments is not modelled"));
        }
        return Ok(Some(Rule::Format(if is("email") {
            "email"
        } else {
            "uri"
        })));
    }
    if is("range") {
        let (mut min, mut max) = (None, None);
        meta.parse_nested_meta(|bound| {
            let value = number(&bound.value()?.parse::<syn::Expr>()?)
                .ok_or_else(|| bound.error("a bound that is not a number literal"))?;
            match () {
                () if bound.path.is_ident("min") => min = Some(value),
                () if bound.path.is_ident("max") => max = Some(value),
                () => return Err(bound.error("not modelled")),
            }
            Ok(())
        })?;
        return Ok(Some(Rule::Range(min, max)));
    }
    if is("length") {
        let (mut min, mut max) = (None, None);
        meta.parse_nested_meta(|bound| {
            let value = number(&bound.value()?.parse::<syn::Expr>()?)
                .filter(|value| value.fract() == 0.0 && *value >= 0.0)
                .ok_or_else(|| bound.error("a length that is not an integer literal"))?
                as u64;
            match () {
                () if bound.path.is_ident("min") => min = Some(value),
                () if bound.path.is_ident("max") => max = Some(value),
                () if bound.path.is_ident("equal") => (min, max) = (Some(value), Some(value)),
                () => return Err(bound.error("not modelled")),
            }
            Ok(())
        })?;
        return Ok(Some(Rule::Length(min, max)));
    }
    if is("regex") || is("pattern") {
        // `regex(pattern = "..")`, `regex = ".."`, `pattern("..")`.
        let mut pattern = None;
        if meta.input.peek(syn::Token![=]) {
            pattern = Some(string(&meta.value()?.parse()?)?);
        } else if is("pattern") {
            let content;
            syn::parenthesized!(content in meta.input);
            pattern = Some(string(&content.parse()?)?);
        } else {
            meta.parse_nested_meta(|inner| {
                if !inner.path.is_ident("pattern") {
                    return Err(inner.error("not modelled"));
                }
                pattern = Some(string(&inner.value()?.parse()?)?);
                Ok(())
            })?;
        }
        let pattern = pattern.ok_or_else(|| meta.error("a pattern without its text"))?;
        return Ok(Some(Rule::Pattern(pattern)));
    }
    Ok(None)
}

/// `Some(bound)` or `None`, as tokens.
fn option<T: quote::ToTokens>(bound: &Option<T>) -> TokenStream {
    match bound {
        Some(bound) => quote!(::core::option::Option::Some(#bound)),
        None => quote!(::core::option::Option::None),
    }
}

/// The text of a string literal.
fn string(expr: &syn::Expr) -> syn::Result<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(text.value()),
        other => Err(syn::Error::new_spanned(other, "not a string literal")),
    }
}

/// The value of a number literal, negated if written `-n`.
fn number(expr: &syn::Expr) -> Option<f64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            Lit::Int(int) => int.base10_parse::<f64>().ok(),
            Lit::Float(float) => float.base10_parse::<f64>().ok(),
            _ => None,
        },
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|value| -value),
        syn::Expr::Group(group) => number(&group.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    fn rules_of(attr: Attribute) -> Option<Vec<String>> {
        let mut rules = Vec::new();
        attributes_known(&[attr], FIELD_KEYS, &mut rules)?;
        Some(
            rules
                .iter()
                .map(|rule| match rule {
                    Rule::Range(min, max) => format!("range {min:?} {max:?}"),
                    Rule::Length(min, max) => format!("length {min:?} {max:?}"),
                    Rule::Pattern(pattern) => format!("pattern {pattern}"),
                    Rule::Format(format) => format!("format {format}"),
                })
                .collect(),
        )
    }

    #[test]
    fn reads_each_rule_in_each_spelling() {
        let cases: [(Attribute, &[&str]); 8] = [
            (
                parse_quote!(#[schemars(range(min = -1.5, max = 2))]),
                &["range Some(-1.5) Some(2.0)"],
            ),
            (
                parse_quote!(#[validate(length(equal = 3))]),
                &["length Some(3) Some(3)"],
            ),
            (
                parse_quote!(#[schemars(regex(pattern = r"^\d+$"))]),
                &[r"pattern ^\d+$"],
            ),
            (parse_quote!(#[schemars(regex = "a+")]), &["pattern a+"]),
            (parse_quote!(#[schemars(pattern("b+"))]), &["pattern b+"]),
            (
                parse_quote!(#[schemars(email, url, description = "x")]),
                &["format email", "format uri"],
            ),
            (parse_quote!(#[serde(rename = "n", default)]), &[]),
            (parse_quote!(#[doc = " A field."]), &[]),
        ];
        for (attr, expected) in cases {
            let expected: Vec<String> = expected.iter().map(|rule| rule.to_string()).collect();
            assert_eq!(rules_of(attr), Some(expected));
        }
    }

    #[test]
    fn anything_not_modelled_leaves_the_type_not_exact() {
        let cases: [Attribute; 7] = [
            parse_quote!(#[serde(alias = "n")]),
            parse_quote!(#[serde(flatten)]),
            parse_quote!(#[schemars(range(min = LIMIT))]),
            parse_quote!(#[schemars(range(exclusive_min = 1))]),
            parse_quote!(#[schemars(extend("x" = 1))]),
            parse_quote!(#[garde(length(min = 1))]),
            parse_quote!(#[cfg(test)]),
        ];
        for attr in cases {
            let shown = quote!(#attr).to_string();
            assert!(rules_of(attr).is_none(), "{shown}");
        }
    }
}
