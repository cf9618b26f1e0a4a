"""Batched System One requests: the questions that share one state go in one call.

A :class:`~runner.systemone.decision.SingleDecisionTarget` sends one question per request,
though System One endpoints take up to 64. :class:`BatchedDecisionTarget` wraps it. Before each document
group runs, the executor calls :meth:`~BatchedDecisionTarget.prefetch` with the group's
scenarios: it builds each scenario's request exactly as ``DecisionTarget`` would (its
option-limit check included), groups the requests whose everything-but-``questions``
is equal (``model``, ``extra_body`` and ``state`` = ``{**decision.state, "documents":
[texts]}``), and sends each group's questions in requests of at most
``batch_questions``, each body within the endpoint's byte limit (Ollama: 64 KiB).
Question ids must be unique within a request: a question whose id is already in it
(packs often leave every id at simpleaudit's default, ``answer``) is sent as
``<id>~2``, ``<id>~3``, … and its answer mapped back. Each scenario then runs through
simpleaudit as usual and :meth:`~BatchedDecisionTarget.send` hands it its own
pre-fetched answer, so it is graded as its own scenario.

Each batch is one ``Request`` carrying its body through the scenarios' ``Model`` (cache,
retries, redaction, token counts), which ``api.SystemOneAPI`` posts as it is. What
is not pre-fetched goes out as a single request: a group of one, a scenario whose own
request breaks a limit (it then fails with that limit's error), an answer missing from a
batch reply, and every question of a batch that failed. A batch rejected with HTTP 400,
413 or 422 is recorded with its reason; after a 400 or 422 (the endpoint refuses several
questions per call) batching stops for the rest of the run; a batch still failing at the
endpoint after its retries (5xx, time-out) falls back too. A batch may take as long as its
questions' single requests together. A batch answer is checked as a single reply is
(``api.decision_reply``: a choice outside the options is that scenario's error),
and the reply's usage is shared evenly among its questions, so token totals stay exact.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from simpleaudit.decision import (
    public_decision,
    render_decision_prompt,
    validate_decision,
)
from simpleaudit.targets import TargetResponse

from auditpacks.core.defaults import MAX_QUESTIONS
from auditpacks.core.numbers import token_count
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import CallFailed
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.systemone.decision import SingleDecisionTarget
from auditpacks.runner.systemone.api import compact, decision_reply

STOP_BATCHING = (400, 422)


@dataclass(frozen=True)
class Question:
    key: str                 # the scenario's journal key
    decision: dict[str, Any]  # the public decision block
    body: dict[str, Any]      # simpleaudit's single request for it


def share(total: Any, parts: int, index: int) -> int | None:
    """Part ``index`` of ``total`` split into ``parts`` near-equal integers (None when unknown)."""
    total = token_count(total)
    if total is None:
        return None
    base, extra = divmod(total, parts)
    return base + (1 if index < extra else 0)


def answer_response(decision: Mapping[str, Any], answer: Any, usage: Mapping[str, Any], parts: int,
                    index: int, model: Any) -> TargetResponse | None:
    """The TargetResponse a single request would have given (None: no answer, ask again alone)."""
    if not isinstance(answer, dict):
        return None
    tokens = {k: share(usage.get(k), parts, index) for k in ("input_tokens", "output_tokens")}
    reply = decision_reply(decision, {"answers": {decision["id"]: answer}, "usage": tokens})
    raw = {"model": model, "answers": {decision["id"]: answer}, "usage": tokens, "batch_questions": parts}
    return TargetResponse(content=reply.content, raw=raw, input_tokens=tokens["input_tokens"],
                          output_tokens=tokens["output_tokens"], decision=answer)


class BatchedDecisionTarget(RunTarget):
    """A decision target that answers a group's questions from as few requests as its limit allows; what is not
    pre-fetched goes through ``single``."""

    max_turns = 1

    def __init__(self, single: SingleDecisionTarget, *, batch_questions: int = MAX_QUESTIONS) -> None:
        if batch_questions < 2:
            raise ValueError(f"batch_questions must be at least 2 to batch, got {batch_questions}")
        self.single, self.inner, self.batch_questions, self.enabled = single, single.inner, batch_questions, True
        self.sizes: Counter[int] = Counter()
        self.single_calls = 0
        self.fallbacks: list[dict[str, Any]] = []
        self._ready: dict[str, list[TargetResponse | Exception]] = {}

    # -- before a group -----------------------------------------------------------------------
    def questions(self, scenarios: list[dict[str, Any]], keys: list[str]) -> list[Question]:
        """The scenarios' single requests; those that break a limit are left to fail alone."""
        out = []
        for scenario, key in zip(scenarios, keys):
            try:
                decision = public_decision(validate_decision(scenario["decision"]))
                prompt = scenario.get("test_prompt") or render_decision_prompt(decision)
                body = self.inner.build_request(decision, prompt, scenario.get("documents"))
            except (KeyError, TypeError, ValueError):
                continue
            if self.inner.max_body_bytes is None or len(compact(body)) <= self.inner.max_body_bytes:
                out.append(Question(key, decision, body))
        return out

    def batches(self, questions: list[Question]) -> list[list[Question]]:
        """Requests of at most ``batch_questions`` questions on one state, bodies within the byte limit."""
        states: dict[bytes, list[Question]] = {}
        for question in questions:
            states.setdefault(compact({k: v for k, v in question.body.items() if k != "questions"}), []).append(question)
        out: list[list[Question]] = []
        for members in states.values():
            batch: list[Question] = []
            for question in members:
                if batch and not self._fits(batch, question):
                    out.append(batch)
                    batch = []
                batch.append(question)
            out.append(batch)
        return out

    def _fits(self, batch: list[Question], question: Question) -> bool:
        if len(batch) >= self.batch_questions:
            return False
        limit = self.inner.max_body_bytes
        return limit is None or len(compact(self.request_body([*batch, question])[0])) <= limit

    @staticmethod
    def request_body(batch: list[Question]) -> tuple[dict[str, Any], list[str]]:
        """The batch's request and the id each question has in it (a repeated id gets a ``~n`` suffix)."""
        questions: dict[str, Any] = {}
        ids = []
        for question in batch:
            (qid, spec), = question.body["questions"].items()
            unique, n = qid, 1
            while unique in questions:
                n += 1
                unique = f"{qid}~{n}"
            questions[unique] = spec
            ids.append(unique)
        return {**batch[0].body, "questions": questions}, ids

    async def prefetch(self, scenarios: list[dict[str, Any]], keys: list[str]) -> None:
        """Fetch the answers of these scenarios' questions, a batch per state (see the module doc)."""
        if not self.enabled:
            return
        for batch in self.batches(self.questions(scenarios, keys)):
            if len(batch) > 1 and self.enabled:
                await self._fetch(batch)

    async def _fetch(self, batch: list[Question]) -> None:
        body, ids = self.request_body(batch)
        try:
            reply = await self.single.model.generate(self.batch_request(body, len(batch)))
        except Exception as exc:  # noqa: BLE001 - any failure: ask the questions one at a time
            status = exc.status if isinstance(exc, CallFailed) else None
            if status in STOP_BATCHING:
                self.enabled = False
            reason = str(exc) if isinstance(exc, CallFailed) else f"{type(exc).__name__}: {exc}"
            return self._fall_back(batch, reason[:300], status=status)
        self.sizes[len(batch)] += 1
        data = reply.batch or {}
        answers = data.get("answers") if isinstance(data.get("answers"), dict) else {}
        usage = {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens}
        missing = 0
        for index, (question, qid) in enumerate(zip(batch, ids)):
            try:
                response = answer_response(question.decision, answers.get(qid), usage, len(batch), index,
                                           data.get("model"))
            except RuntimeError as exc:
                response = exc
            if response is None:
                missing += 1
            else:
                self._ready.setdefault(question.key, []).append(response)
        if missing:
            self._fall_back(batch, f"the reply lacked {missing} of {len(batch)} answers", asked_alone=missing)

    def batch_request(self, body: dict[str, Any], questions: int) -> Request:
        """The batch's request for the one model-call path; its time limit is its single requests' added up."""
        return Request(messages=[], body=body, timeout=self.inner.timeout * questions)

    def _fall_back(self, batch: list[Question], reason: str, *, status: int | None = None,
                   asked_alone: int | None = None) -> None:
        self.fallbacks.append({"questions": len(batch), "asked_alone": asked_alone or len(batch), "status": status,
                               "reason": reason, "batching_stopped": not self.enabled})

    # -- per scenario ---------------------------------------------------------------------------
    async def send(self, *, system: str | None = None, user: str, history: list[dict[str, Any]] | None = None,
                   file_uri: Any = None, documents: list[Any] | None = None,
                   response_format: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                   context: Any = None) -> TargetResponse:
        log = scenario_log.current()
        ready = self._ready.get(log.key) if log is not None and log.key else None
        if ready:
            item = ready.pop(0)
            if isinstance(item, Exception):
                raise item
            return item
        self.single_calls += 1
        return await self.single.send(user=user, history=history, documents=documents, context=context)

    @property
    def repeat(self) -> int:  # type: ignore[override]
        return self.single.repeat

    @repeat.setter
    def repeat(self, value: int) -> None:
        self.single.repeat = value

    @property
    def fatal(self) -> BaseException | None:
        return self.single.fatal

    async def aclose(self) -> None:
        await self.single.aclose()

    # -- reporting ------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """For the run file: requests made, the size of every batch, single calls and fallbacks."""
        batches = sum(self.sizes.values())
        return {"decision_batching": {
            "batch_questions": self.batch_questions,
            "requests": batches + self.single_calls,
            "batches": batches,
            "batched_questions": sum(size * n for size, n in self.sizes.items()),
            "batch_sizes": {str(size): n for size, n in sorted(self.sizes.items(), reverse=True)},
            "single_calls": self.single_calls,
            "fallbacks": list(self.fallbacks),
        }}

    def notes(self) -> list[str]:
        """One summary line per rejected or failed batch."""
        return [f"decision batch of {f['questions']} questions: {f['reason']}; asked {f['asked_alone']} of them "
                "one at a time" + ("; batching stopped for the rest of the run" if f["batching_stopped"] else "")
                for f in self.fallbacks]
