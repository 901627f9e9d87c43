//! Approvals on the stateless 2026-07-28 revision, as multi round-trip requests.
//!
//! That revision forbids the server's own requests (no elicitation mid-call). Instead, a
//! `tools/call` whose escalation needs approval is answered with an `InputRequiredResult`:
//! one elicitation (`"approval"`, the terminal prompt's words, a form with one boolean
//! `approve`) and a sealed `requestState`. The client asks its user and sends the same call
//! again with the answer in `inputResponses` and the state echoed; [`ApprovalRounds::answer`]
//! then approves exactly that call, once.
//!
//! The state is the client's to echo, so it is untrusted: it is sealed with HMAC-SHA256
//! (rmcp's `RequestStateCodec`) under a key drawn at start and never written anywhere, bound
//! to the tool and a digest of the arguments (a state cannot approve a different call or
//! other arguments), stamped to expire after [`MCP_APPROVAL_ROUND_SECS`] and carrying a
//! sequence number that is redeemed once (a replayed answer is refused). A restarted server
//! cannot open its predecessor's states.
//!
//! Remembering the answers is bounded without locking anyone out: at most
//! [`MCP_MAX_REMEMBERED_APPROVALS`] are kept; one more forgets the oldest-asked and from then
//! on refuses every round asked no later than it (a floor that only rises). A flood of
//! answered rounds can so make a question asked before it unanswerable (asking again works),
//! but never a question asked after it, and never accept an answer twice.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequest, ElicitResult, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    RequestStateCodec, SealOptions,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use toolhost_limits::{MCP_APPROVAL_ROUND_SECS, MCP_MAX_REMEMBERED_APPROVALS};

use crate::elicit::{approval_form, approves};

/// The key of the one input request an approval round asks.
pub const APPROVAL_INPUT: &str = "approval";

/// Why the answer to an approval round was refused (the call is then not run).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RoundError {
    /// The state was not sealed by this server process for this tool and these arguments,
    /// or has expired.
    #[error(
        "the approval's requestState does not belong to this call: it was changed, made for \
         another tool or other arguments, issued by another server process, or it expired \
         (answers are accepted for {MCP_APPROVAL_ROUND_SECS} s); make the call again to be asked again"
    )]
    Invalid,
    /// The state was already answered once.
    #[error(
        "this approval was already answered once; an answer approves one call only — make the \
         call again to be asked again"
    )]
    Replayed,
    /// The round was asked before the oldest answer still remembered: its own answer could
    /// not be told from a replay, so it is refused.
    #[error(
        "this approval was asked before the last {MCP_MAX_REMEMBERED_APPROVALS} approvals \
         answered and can no longer be answered (so that no answer is ever accepted twice); \
         make the call again to be asked again"
    )]
    Superseded,
    /// `inputResponses` came without `requestState`, or the other way round.
    #[error("a retried call must carry both `inputResponses` and the `requestState` it was given")]
    Incomplete,
}

/// What the sealed request state holds (signed, not encrypted: nothing secret).
#[derive(Serialize, Deserialize)]
struct Round {
    /// Which round of this process it is (numbered from 0 as asked); redeemed once.
    seq: u64,
}

/// The approval rounds of one server process: the sealing key and the answers redeemed.
pub struct ApprovalRounds {
    codec: RequestStateCodec,
    /// The number of the next round asked.
    next: AtomicU64,
    /// The rounds answered.
    redeemed: Mutex<Redeemed>,
}

/// The rounds answered that are remembered, and the floor below which none is accepted.
#[derive(Default)]
struct Redeemed {
    /// Round numbers answered, with when they stop mattering (their state has expired by
    /// then); at most [`MCP_MAX_REMEMBERED_APPROVALS`].
    answered: BTreeMap<u64, Instant>,
    /// Every round numbered below this is refused ([`RoundError::Superseded`]): it may have
    /// been answered and forgotten. Only rises.
    floor: u64,
}

impl Redeemed {
    /// Redeem round `seq` at `now`: refused when it was answered before or is below the
    /// floor; when the memory is full, the oldest-asked round is forgotten and the floor
    /// rises past it.
    fn redeem(&mut self, seq: u64, now: Instant) -> Result<(), RoundError> {
        self.answered.retain(|_, until| *until > now);
        if seq < self.floor {
            return Err(RoundError::Superseded);
        }
        if self.answered.contains_key(&seq) {
            return Err(RoundError::Replayed);
        }
        if self.answered.len() >= MCP_MAX_REMEMBERED_APPROVALS {
            let oldest = self.answered.keys().next().copied().unwrap_or(seq);
            if seq < oldest {
                self.floor = seq + 1;
                return Err(RoundError::Superseded);
            }
            self.answered.remove(&oldest);
            self.floor = oldest + 1;
        }
        self.answered.insert(seq, now + Duration::from_secs(MCP_APPROVAL_ROUND_SECS));
        Ok(())
    }
}

impl ApprovalRounds {
    /// Rounds sealed with a fresh random key.
    pub fn new() -> Result<Self, getrandom::Error> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)?;
        let codec = RequestStateCodec::try_new(key.to_vec())
            .expect("a 32-byte key is long enough for the codec");
        Ok(ApprovalRounds { codec, next: AtomicU64::new(0), redeemed: Mutex::default() })
    }

    /// The input-required result that asks `message` about the call of `tool` with
    /// `arguments` (none if the approval form cannot be built: the call stays denied).
    pub fn ask(
        &self,
        tool: &str,
        arguments: &Value,
        message: String,
    ) -> Option<InputRequiredResult> {
        // Unique under this process's key (sealed: a client cannot change it).
        let round = Round { seq: self.next.fetch_add(1, Ordering::Relaxed) };
        let context = bound_to(tool, arguments);
        let state = self
            .codec
            .seal_json_with(
                &round,
                &SealOptions::new()
                    .associated_data(&context)
                    .ttl(Duration::from_secs(MCP_APPROVAL_ROUND_SECS)),
            )
            .expect("a round number serializes");
        let mut requests = InputRequests::new();
        requests.insert(
            APPROVAL_INPUT.to_string(),
            InputRequest::Elicitation(ElicitRequest::new(approval_form(message)?)),
        );
        Some(InputRequiredResult::new(Some(requests), Some(state)))
    }

    /// Whether the retried call of `tool` with `arguments` is approved: the state must be
    /// one this process sealed for exactly this call, unexpired, not answered before and not
    /// superseded; approved when the answer to [`APPROVAL_INPUT`] accepts with
    /// `approve: true`.
    pub fn answer(
        &self,
        tool: &str,
        arguments: &Value,
        state: &str,
        responses: &InputResponses,
    ) -> Result<bool, RoundError> {
        let round: Round = self
            .codec
            .open_json_with(state, &bound_to(tool, arguments))
            .map_err(|_| RoundError::Invalid)?;
        self.redeemed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .redeem(round.seq, Instant::now())?;
        let Some(answer) = responses.get(APPROVAL_INPUT) else { return Ok(false) };
        Ok(serde_json::from_value::<ElicitResult>(answer.clone()).is_ok_and(|a| approves(&a)))
    }
}

/// What a state is bound to: the tool and a digest of the arguments, as the client sent them
/// (so a retry with other arguments cannot use it).
fn bound_to(tool: &str, arguments: &Value) -> Vec<u8> {
    let digest = Sha256::digest(arguments.to_string().as_bytes());
    let mut context = b"toolhost approval round v1\0".to_vec();
    context.extend_from_slice(tool.as_bytes());
    context.push(0);
    context.extend_from_slice(&digest);
    context
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn accept(approve: bool) -> InputResponses {
        let mut r = InputResponses::new();
        r.insert(
            APPROVAL_INPUT.into(),
            json!({"action": "accept", "content": {"approve": approve}}),
        );
        r
    }

    fn state_of(asked: &InputRequiredResult) -> String {
        asked.request_state.clone().unwrap()
    }

    #[test]
    fn an_accepted_answer_approves_its_call_once() {
        let rounds = ApprovalRounds::new().unwrap();
        let args = json!({"command": "touch /outside/x"});
        let asked = rounds.ask("bash", &args, "Allow?".into()).unwrap();
        let state = state_of(&asked);
        assert_eq!(rounds.answer("bash", &args, &state, &accept(true)), Ok(true));
        assert_eq!(rounds.answer("bash", &args, &state, &accept(true)), Err(RoundError::Replayed));
    }

    #[test]
    fn a_declined_or_missing_answer_denies() {
        let rounds = ApprovalRounds::new().unwrap();
        let args = json!({});
        let a = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
        assert_eq!(rounds.answer("bash", &args, &a, &accept(false)), Ok(false));
        let b = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
        let mut declined = InputResponses::new();
        declined.insert(APPROVAL_INPUT.into(), json!({"action": "decline"}));
        assert_eq!(rounds.answer("bash", &args, &b, &declined), Ok(false));
        let c = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
        assert_eq!(rounds.answer("bash", &args, &c, &InputResponses::new()), Ok(false));
    }

    #[test]
    fn a_state_approves_no_other_call_and_no_other_server() {
        let rounds = ApprovalRounds::new().unwrap();
        let args = json!({"command": "true"});
        let state = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
        let other = json!({"command": "rm -rf ~"});
        assert_eq!(rounds.answer("bash", &other, &state, &accept(true)), Err(RoundError::Invalid));
        assert_eq!(rounds.answer("write", &args, &state, &accept(true)), Err(RoundError::Invalid));
        let restarted = ApprovalRounds::new().unwrap();
        assert_eq!(
            restarted.answer("bash", &args, &state, &accept(true)),
            Err(RoundError::Invalid)
        );
        let mut forged = state.clone();
        forged.push('A');
        assert_eq!(rounds.answer("bash", &args, &forged, &accept(true)), Err(RoundError::Invalid));
        // The untouched state still works for its own call.
        assert_eq!(rounds.answer("bash", &args, &state, &accept(true)), Ok(true));
    }

    #[test]
    fn a_flood_of_answers_locks_no_later_approval_out_and_opens_no_replay() {
        let rounds = ApprovalRounds::new().unwrap();
        let args = json!({"command": "true"});
        let before = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
        let flood: Vec<String> = (0..MCP_MAX_REMEMBERED_APPROVALS + 10)
            .map(|_| {
                let state = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
                assert_eq!(rounds.answer("bash", &args, &state, &accept(false)), Ok(false));
                state
            })
            .collect();
        // Asked after the flood: answered, once.
        let later = state_of(&rounds.ask("bash", &args, "Allow?".into()).unwrap());
        assert_eq!(rounds.answer("bash", &args, &later, &accept(true)), Ok(true));
        assert_eq!(rounds.answer("bash", &args, &later, &accept(true)), Err(RoundError::Replayed));
        // Forgotten answers (the 11 asked first: 4,107 answered, 4,096 remembered) are not
        // accepted again, nor is a question older than them; remembered ones are replays.
        for (i, state) in flood[..20].iter().enumerate() {
            let again = rounds.answer("bash", &args, state, &accept(true));
            let expected = if i < 11 { RoundError::Superseded } else { RoundError::Replayed };
            assert_eq!(again, Err(expected), "round {i}");
        }
        assert_eq!(
            rounds.answer("bash", &args, &before, &accept(true)),
            Err(RoundError::Superseded)
        );
        // Remembered ones are still replays; the memory stays bounded.
        let last = flood.last().unwrap();
        assert_eq!(rounds.answer("bash", &args, last, &accept(true)), Err(RoundError::Replayed));
        let redeemed = rounds.redeemed.lock().unwrap();
        assert!(redeemed.answered.len() <= MCP_MAX_REMEMBERED_APPROVALS);
    }

    #[test]
    fn the_floor_refuses_exactly_the_forgotten_rounds() {
        let mut r = Redeemed::default();
        let now = Instant::now();
        for seq in 0..MCP_MAX_REMEMBERED_APPROVALS as u64 {
            r.redeem(seq, now).unwrap();
        }
        // Full: a newer round forgets round 0, and round 0 is refused from then on.
        let newer = MCP_MAX_REMEMBERED_APPROVALS as u64 + 5;
        assert_eq!(r.redeem(newer, now), Ok(()));
        assert_eq!(r.floor, 1);
        assert_eq!(r.redeem(0, now), Err(RoundError::Superseded));
        assert_eq!(r.redeem(1, now), Err(RoundError::Replayed));
        // A round asked in between, never answered, still is.
        assert_eq!(r.redeem(newer - 1, now), Ok(()));
        assert_eq!(r.answered.len(), MCP_MAX_REMEMBERED_APPROVALS);
        // Answers whose state expired are forgotten without raising the floor.
        let later = now + Duration::from_secs(MCP_APPROVAL_ROUND_SECS + 1);
        assert_eq!(r.redeem(newer + 1, later), Ok(()));
        assert_eq!(r.answered.len(), 1);
        assert_eq!(r.floor, 2);
    }
}
