//! The call contract's two artifact steps: redeeming the references a `wants` argument holds
//! (after the arguments are validated, before the call starts), and keeping a result over its
//! tool's artifact size aside (after the ceiling, before the bound).

use serde_json::Value;

use super::artifact::{Artifact, ArtifactShelf, Refusal};
use super::wanted::REDEEMED_KEY;
use crate::tool::{ResultKind, WantedArgument};
use crate::tool::{ToolDescriptor, ToolFailure, minted_text, refusal_text};

/// Replaces, in the validated `arguments`, the reference of each argument `wants` names with
/// the redeemed artifact ([`REDEEMED_KEY`] and its kind, size and data), which a
/// [`Wanted`](crate::tool::Wanted) field reads. An argument left out (or `null`) is left alone: its
/// schema says whether it may be. A reference this execution does not hold, or holds of another
/// kind, is refused ([`ToolFailure::ArtifactRefused`]) with the live ones of the wanted kind.
pub(crate) async fn redeem(
    wants: &[WantedArgument],
    arguments: &mut Value,
    shelf: Option<&dyn ArtifactShelf>,
) -> Result<(), ToolFailure> {
    for wanted in wants {
        let Some(slot) = arguments.get_mut(wanted.argument) else {
            continue;
        };
        let reference = match &mut *slot {
            Value::Null => continue,
            Value::String(reference) => std::mem::take(reference),
            // The schema says a string: only a hand-written schema lets another through.
            other => other.to_string(),
        };
        let found = match shelf {
            Some(shelf) => shelf.get(&reference).await.map_err(unavailable)?,
            None => None,
        };
        let artifact = match found {
            Some(artifact) if artifact.kind == wanted.kind => artifact,
            Some(artifact) => {
                let why = Refusal::OtherKind {
                    reference,
                    kind: artifact.kind,
                };
                return Err(refused(wanted, &why, shelf).await);
            }
            None => return Err(refused(wanted, &Refusal::Unknown(reference), shelf).await),
        };
        let size = artifact.size();
        let data: Value = serde_json::from_str(&artifact.data).map_err(|e| {
            unavailable(format!(
                "artifact `{}` holds no JSON: {e}",
                artifact.reference
            ))
        })?;
        *slot = serde_json::json!({
            REDEEMED_KEY: artifact.reference,
            "kind": artifact.kind,
            "size": size,
            "data": data,
        });
    }
    Ok(())
}

async fn refused(
    wanted: &WantedArgument,
    why: &Refusal,
    shelf: Option<&dyn ArtifactShelf>,
) -> ToolFailure {
    let live = match shelf {
        Some(shelf) => match shelf.live(wanted.kind).await {
            Ok(live) => live,
            Err(error) => return unavailable(error),
        },
        None => Vec::new(),
    };
    ToolFailure::ArtifactRefused(refusal_text(wanted, why, &live))
}

fn unavailable(error: String) -> ToolFailure {
    ToolFailure::ArtifactStore(error)
}

/// Keeps `text`, the rendered result of `descriptor`'s call `call_id`, as an artifact of
/// `kind` on `shelf`, and gives what the model reads instead ([`minted_text`]).
pub(crate) async fn mint(
    descriptor: &ToolDescriptor,
    kind: &ResultKind,
    text: String,
    call_id: &str,
    shelf: &dyn ArtifactShelf,
) -> Result<String, ToolFailure> {
    let reference = super::artifact::new_reference().map_err(unavailable)?;
    let artifact = Artifact {
        reference,
        execution_id: shelf.execution_id().to_owned(),
        kind: kind.kind.to_owned(),
        tool: descriptor.name().to_owned(),
        call_id: call_id.to_owned(),
        data: text,
    };
    shelf.put(&artifact).await.map_err(unavailable)?;
    Ok(minted_text(
        &artifact.reference,
        &artifact.kind,
        artifact.size(),
    ))
}
