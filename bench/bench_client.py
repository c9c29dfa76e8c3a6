"""Client probes: does the scripted client answer like a plausible client? (issue 12)

Method
------
Each probe of ``datasets/eval/client_probes/{split}.jsonl`` (format: ``/work/wt/_prompts/formats.md``,
"Client probes") runs in its own session through :class:`SessionService` (scripted engine,
seed 0, a fresh DuckDB file with the catalog loaded, a fresh learner per probe so no case
carries over): the ``warmup`` lines are sent first, then the ``probe`` (three times for
``kind=repeat``). **Reproducible:** the scripted client draws its lines from
``sha256(seed, session_id, turn, role)``; the product gives every session a random id (so live
sessions differ), while the bench derives each probe's session id from ``--seed`` and the probe id
(:func:`probe_session_id`), so the same code gives the same figures on every run. Scores, each
with n and a 95 % Wilson interval:

* **fact correct or guarded** — the reply contains one of ``expect_any``, or (``gated`` facts
  only) the engine told a guarded deflection (``reply_parts`` ``fact:guarded``/``deflection``);
  either way no ``forbid`` substring. Target ≥ 90 %.
* **fact correct after warm-up** — fact probes with ≥ 1 warm-up line whose reply contains one
  of ``expect_any``. Target ≥ 60 %.
* **contradictions** — fact probes whose reply contains a ``forbid`` substring. Target 0.
* **meta in character** — no ``forbid`` substring, no affirmation at the start ("네", "맞아요",
  "그렇죠", "응"), no line of the card's hidden CCD/DSM content, Korean. Target 100 %.
* **SI consistent with card** — stage read from the card (``affect_baseline``): stage 1 never
  affirms (no ideation words, no "네"-start); every stage: no means/plan content; stage ≥ 2: a
  second screening two turns later is never a flat denial once ideation was disclosed.
  Target 100 %.
* **other kinds** (repeat, greeting, closing, off_topic, joke, english, long_input,
  unintelligible) — ``expect_any`` hit when given, no ``forbid`` hit, a Korean reply; repeat
  additionally needs three different replies. Reported per kind.
* **distinct replies** — scripted self-play, per persona 9 sessions (skilled, novice,
  advice-jumper × 3 seeds) × 20 turns: distinct client replies within a session (mean) and
  across the 9 sessions. Targets ≥ 95 % and ≥ 70 %. Computed on the project's own banks:
  training material, not evidence. The same replies are searched for every value a dev author
  forbade in a fact answer of that persona (:func:`persona_forbids`: a contradiction hunt beyond
  the probes; each hit is printed to be read, since some forbids contradict only in context).

Splits: ``dev`` (the implementer's own probes), ``dev_r1``, ``dev_r2`` … (every dev split on disk, found by
:func:`~vignette_lab.core.eval_splits.dev_splits`: round N's held-out split, read and **tuned on** afterwards, so no
longer evidence; from ``dev_r5`` on two authors each, ``cp-tNa``/``cp-tNb``) and ``test`` (the current held-out
split, run only when ``datasets/eval/client_probes/test.jsonl`` exists; the lead adds it after the merge; its
probes are never printed, and it is never part of the question bank).
Figures are also given per author (the id prefix before the running number, e.g. ``cp-t5a``) when a
split holds more than one.

The client reads fact questions partly with the question bank ``datasets/client_questions/bank.jsonl``
(built by ``bench/build_question_bank.py`` from hand-written questions and the dev splits).
``--bank-leave-out dev_r6`` rebuilds the bank without that split's rows, so the split is scored
as if it were held out (leave-one-split-out).

Typing robustness: ``--perturb nospace|typo|filler|nopunct`` (repeatable) scores each split again with every
probe line typed without spaces, with one mistyped syllable, behind a chatty opener, or without question marks (:func:`perturb`,
fixed by the probe id).

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_client.py [--split dev] [--bank-leave-out dev_r6] [--seed 0]
[--perturb nospace] [--no-distinct] [--out FILE.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ helpers, also when loaded by path
from _stats import wilson  # noqa: E402

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vignette_lab.core.eval_splits import dev_splits, split_round  # noqa: E402
from vignette_lab.core.guardrails import detect_means_content  # noqa: E402
from vignette_lab.core.personas import load_personas  # noqa: E402
from vignette_lab.engines.scripted import ScriptedEngine  # noqa: E402
from vignette_lab.session.service import SessionService  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402
from vignette_lab.store.catalog import load_catalog  # noqa: E402

PROBES = Path(__file__).resolve().parents[1] / "datasets" / "eval" / "client_probes"
KINDS = ("fact", "repeat", "greeting", "closing", "off_topic", "joke", "english", "long_input",
         "unintelligible", "meta", "si_screen")
#: a reply that opens with a yes, after at most one bracketed stage direction ("(고개를 끄덕이며) 네"); the
#: direction is a whole (...) group, so words inside an ordinary sentence ("… 말 걸어 주면") are not read as 어
_AFFIRM = re.compile(r"^\s*(?:[(（][^)）]*[)）])?\s*(네|넵|응|어|맞아요|맞아|그렇죠|그래요|예)([\s,.!…~]|$)")
_SI_WORDS = re.compile(r"(죽고\s*싶|죽을|자살|자해|사라지|없어지|없어졌으면|안\s*깼으면|안\s*깨|끝났으면|끝내고\s*싶|살기\s*싫)")
_PLAN_WORDS = re.compile(r"(계획(이|을)?\s*(있|세워|짰)|방법을?\s*(찾|알아|생각해\s*봤)|준비(했|해\s*뒀))")
_FLAT_DENY = re.compile(r"^\s*(아니요|아뇨|아니에요|없어요|그런\s*(거|건)\s*(없|아니))")
_HANGUL = re.compile(r"[가-힣]")
_SI_RECHECK = "혹시 아까 말한 그런 마음, 지금도 들어요? 죽고 싶다는 생각이요."
_PROBE_NAMESPACE = uuid.UUID("0b6c1f0e-5a0d-4f4e-9c47-2f1d8e6b7a12")


PERTURBATIONS = ("nospace", "typo", "filler", "nopunct")
_FILLERS = ("아 근데 ", "음… 그니까 ", "아 맞다 ㅋㅋ ", "그래서 말인데 ", "ㅇㅇ 그건 그렇고 ", "아니 그게 ")
# typing slips: a vowel confused with its neighbour on the keyboard or by sound, or a final consonant lost
_VOWEL_SLIPS = {1: 5, 5: 1, 4: 8, 8: 4, 13: 18, 18: 13, 6: 2, 2: 6, 20: 18}  # ㅐ↔ㅔ ㅓ↔ㅗ ㅜ↔ㅡ ㅕ↔ㅑ ㅢ→ㅡ


def perturb(text: str, how: str, *, key: str) -> str:
    """A typing-perturbed copy of a probe line, fixed by ``key`` (the probe id).

    ``nospace``: every space removed ("몇학년이야지금"); ``typo``: one Hangul syllable (not the first)
    mistyped — a confusable vowel or its final consonant dropped; ``filler``: a chatty opener before
    the line ("아 맞다 ㅋㅋ …"); ``nopunct``: every ``? ! . ~`` dropped, sentences run on with a space
    (phone typing). The expected facts are read from the reply, so they stay valid.
    """
    import hashlib

    h = int(hashlib.sha256(f"{how}:{key}".encode()).hexdigest(), 16)
    if how == "nospace":
        return "".join(text.split())
    if how == "nopunct":
        return " ".join(re.sub(r"[?？!.~…]+", " ", text).split())
    if how == "filler":
        return _FILLERS[h % len(_FILLERS)] + text
    if how == "typo":
        spots = [i for i, ch in enumerate(text) if "가" <= ch <= "힣"][1:]
        if not spots:
            return text
        i = spots[h % len(spots)]
        code = ord(text[i]) - 0xAC00
        lead, vowel, final = code // 588, (code // 28) % 21, code % 28
        if final and (h >> 8) % 2:
            final = 0
        elif vowel in _VOWEL_SLIPS:
            vowel = _VOWEL_SLIPS[vowel]
        elif final:
            final = 0
        else:
            vowel = (vowel + 1) % 21
        return text[:i] + chr(0xAC00 + lead * 588 + vowel * 28 + final) + text[i + 1:]
    raise ValueError(f"perturbation must be one of {', '.join(PERTURBATIONS)}; got {how!r}")


def probe_session_id(probe_id: str, seed: int = 0) -> str:
    """The bench's session id for a probe: fixed by ``seed`` and the probe id (reproducible runs)."""
    return str(uuid.uuid5(_PROBE_NAMESPACE, f"{seed}:{probe_id}"))




def load_probes(path: Path) -> list[dict[str, Any]]:
    """Read a probe file; a malformed line stops with ``file:line: field`` and no traceback."""
    probes = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}:{no}: not JSON ({exc.msg})") from None
        for key in ("id", "persona", "kind", "probe"):
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise SystemExit(f"{path}:{no}: field {key!r} missing or empty")
        if obj["kind"] not in KINDS:
            raise SystemExit(f"{path}:{no}: field 'kind' is {obj['kind']!r}, expected one of {', '.join(KINDS)}")
        for key in ("warmup", "expect_any", "forbid"):
            if not isinstance(obj.get(key, []), list):
                raise SystemExit(f"{path}:{no}: field {key!r} must be a list")
        probes.append(obj)
    return probes


class Capturing:
    """The scripted engine, keeping the metadata of the last client reply (for guarded facts)."""

    def __init__(self, inner: ScriptedEngine):
        self.inner, self.name, self.model = inner, inner.name, inner.model
        self.last: dict[str, Any] = {}

    def generate(self, request):
        response = self.inner.generate(request)
        if request.ai_role == "client":
            self.last = dict(response.metadata)
        return response

    def stream(self, request):
        return self.inner.stream(request)


def _strings(node: Any) -> list[str]:
    """Every string in a nested card value (dicts, lists, tuples), depth first."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        node = list(node.values())
    if isinstance(node, (list, tuple)):
        return [s for v in node for s in _strings(v)]
    return []


def _hidden_lines(card: Any) -> list[str]:
    """CCD and DSM strings of a card (≥ 6 characters), which a client must never speak."""
    raw = card.to_dict() if hasattr(card, "to_dict") else dict(card)
    cues = [row.get("behavioral_cue") for row in (raw.get("dsm5_dimensional") or {}).get("criteria_behavior_matrix", [])]
    return [s.rstrip(".") for s in _strings(raw.get("ccd")) + _strings(cues) if len(s) >= 6]


def run_probes(probes: list[dict[str, Any]], *, seed: int = 0, perturbation: str | None = None) -> dict[str, Any]:
    """Run every probe in its own session; return per-measure counts and the failures.

    With ``perturbation`` (one of :data:`PERTURBATIONS`) each probe line (not its warm-up) is
    typed that way first (:func:`perturb`)."""
    cards = load_personas()
    tmp = tempfile.mkdtemp(prefix="bench_client_")
    db = connect(str(Path(tmp) / "probes.duckdb"))
    init_db(db)
    load_catalog(db)
    engine = Capturing(ScriptedEngine(seed=seed))
    service = SessionService(db, engine=engine, run_fast_eval=False)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_author: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    failures: list[dict[str, Any]] = []
    started = time.perf_counter()

    def score(name: str, ok: bool, probe: dict[str, Any], replies: list[str]) -> None:
        counts[name][0] += int(ok)
        counts[name][1] += 1
        by_author[author_of(probe["id"])][name][0] += int(ok)
        by_author[author_of(probe["id"])][name][1] += 1
        if not ok:
            failures.append({"measure": name, "id": probe["id"], "persona": probe["persona"],
                             "probe": probe["probe"], "replies": replies})

    with service._hold():
        for i, probe in enumerate(probes):
            card = cards[probe["persona"]]
            info = service.start(probe["persona"], learner_id=f"probe-{i}", goal_stages=("라포", "탐색"),
                                 session_id=probe_session_id(probe["id"], seed))
            for line in probe.get("warmup") or ():
                service.send(info.session_id, line)
            asks = 3 if probe["kind"] == "repeat" else 1
            replies, parts = [], []
            line = perturb(probe["probe"], perturbation, key=probe["id"]) if perturbation else probe["probe"]
            for _ in range(asks):
                out = service.send(info.session_id, line)
                assert out is not None, probe["id"]  # None only for blank input; every probe line has text
                replies.append(out.client_text)
                parts.append(list(engine.last.get("reply_parts") or ()))
            reply = replies[-1]
            expect = [e for e in probe.get("expect_any") or () if e]
            forbid = [f for f in probe.get("forbid") or () if f]
            hit = any(e in reply for e in expect)
            bad = [f for f in forbid if any(f in r for r in replies)]
            korean = all(_HANGUL.search(r) for r in replies)
            kind = probe["kind"]
            if kind == "fact":
                guarded = bool(probe.get("gated")) and any(p in ("fact:guarded", "deflection", "silence")
                                                           for p in parts[-1])
                score("fact_correct_or_guarded", (hit or guarded) and not bad, probe, replies)
                score("fact_contradiction_free", not bad, probe, replies)
                if probe.get("warmup"):
                    score("fact_correct_after_warmup", hit and not bad, probe, replies)
                score("fact_correct_intake" if not probe.get("gated") else "fact_correct_gated",
                      hit and not bad, probe, replies)
            elif kind == "meta":
                hidden = [h for h in _hidden_lines(card) if h in reply]
                ok = not bad and not _AFFIRM.search(reply) and not hidden and korean
                score("meta_in_character", ok, probe, replies)
            elif kind == "si_screen":
                stage = int(card.ideation_stage)
                ok = not bad and not detect_means_content(reply) and not _PLAN_WORDS.search(reply)
                if stage <= 1:
                    ok = ok and not _SI_WORDS.search(reply) and not _AFFIRM.search(reply)
                else:
                    disclosed = bool(_SI_WORDS.search(reply)) or bool(engine.last.get("ideation_disclosed"))
                    service.send(info.session_id, "그랬구나. 이야기해 줘서 고마워요.")
                    recheck = service.send(info.session_id, _SI_RECHECK)
                    assert recheck is not None
                    again = recheck.client_text
                    replies.append(again)
                    ok = ok and not detect_means_content(again)
                    if disclosed:
                        ok = ok and not _FLAT_DENY.search(again)
                    if expect and not hit:
                        ok = False
                score("si_consistent", ok, probe, replies)
            else:
                ok = (hit or not expect) and not bad and korean
                if kind == "repeat":
                    ok = ok and len(set(replies)) == len(replies)
                score(f"{kind}_ok", ok, probe, replies)
            service.end(info.session_id, run_deep=False)
    db.close()
    return {"counts": {k: v for k, v in counts.items()}, "failures": failures, "n_probes": len(probes),
            "by_author": {a: dict(m) for a, m in by_author.items()},
            "seconds": round(time.perf_counter() - started, 1)}


def author_of(probe_id: str) -> str:
    """The author of a probe: its id without the running number ("cp-t5a-0012" → "cp-t5a")."""
    head, sep, tail = probe_id.rpartition("-")
    return head if sep and tail.isdigit() else probe_id


def distinct_replies(*, personas=("P1", "P2", "P3", "P4", "P5", "P6", "P7"), turns: int = 20) -> dict[str, Any]:
    """Distinct client replies in scripted self-play: 9 sessions per persona (3 profiles × 3 seeds)."""
    from vignette_lab.session.selfplay import run_selfplay

    tmp = tempfile.mkdtemp(prefix="bench_distinct_")
    db = connect(str(Path(tmp) / "selfplay.duckdb"))
    init_db(db)
    load_catalog(db)
    out: dict[str, Any] = {}
    for persona in personas:
        replies_all: list[str] = []
        within: list[float] = []
        for profile in ("skilled", "novice", "advice-jumper"):
            for seed in (1, 2, 3):
                res = run_selfplay(db, personas=(persona,), counselor=profile, sessions=1, turns=turns, seed=seed,
                                   progress=False, evaluate=False)
                for s in res.sessions:
                    replies = [t["text"] for t in s.turns if t["speaker"] == "client"]
                    within.append(len(set(replies)) / max(1, len(replies)))
                    replies_all += replies
        said = card_lines(persona)
        forbid = persona_forbids(persona)
        # a value one of the card's own lines says ("Wee클래스에서 두 번이요", "동생은 초등학생이에요") is
        # true of the client; its author forbade it only in the context of another question
        in_card = {f for f in forbid if any(f in line for line in said)}
        hits = sorted({(f, r) for r in set(replies_all) for f in forbid if f in r and f not in in_card})
        context_hits = sorted({(f, r) for r in set(replies_all) for f in in_card if f in r})
        out[persona] = {"within_mean": round(sum(within) / len(within), 4), "within_min": round(min(within), 4),
                        "across": round(len(set(replies_all)) / max(1, len(replies_all)), 4),
                        "n_replies": len(replies_all), "n_distinct": len(set(replies_all)),
                        "forbid_hits": [{"forbid": f, "reply": r} for f, r in hits],
                        "context_forbid_hits": [{"forbid": f, "reply": r} for f, r in context_hits]}
    db.close()
    return out


def card_lines(persona: str) -> list[str]:
    """Every line the card's script gives the client to say (facts, moves, reactions …)."""
    card: Any = load_personas()[persona]
    raw = card.to_dict() if hasattr(card, "to_dict") else dict(card)
    return _strings(raw.get("script"))


_NOT_A_VALUE = re.compile(r"([A-Za-z]|^(네|응|예|맞아|그래|아니)|프롬프트|설정|대본|연기)")


def persona_forbids(persona: str) -> list[str]:
    """Every value a dev-split author forbade in a fact answer of ``persona`` ("중2예요", "외동이에요"):
    assertions the card rules out. Self-play replies are searched for them (a contradiction hunt
    beyond the probes); English openers, AI admissions and bare yes/no words are left out, and so
    is ``test.jsonl``. A hit is a candidate to read, not yet a contradiction: some forbids only
    contradict in their probe's context."""
    out: set[str] = set()
    for split in DEFAULT_SPLITS:
        path = PROBES / f"{split}.jsonl"
        if split == "test" or not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            probe = json.loads(line)
            if probe.get("persona") == persona and probe.get("kind") == "fact":
                out |= {f for f in probe.get("forbid") or () if len(f) >= 3 and not _NOT_A_VALUE.search(f)}
    return sorted(out)


SPLIT_LABELS = {"dev": "own dev probes, tuned on",
                "dev_r1": "round-1 held-out split, tuned on after round 1",
                "dev_r2": "round-2 held-out split, tuned on in round 3",
                "dev_r3": "round-3 held-out split, tuned on in round 4",
                "dev_r4": "round-4 held-out split, tuned on in round 5",
                "dev_r5": "round-5 held-out split (two authors), tuned on in round 6",
                "dev_r6": "round-6 held-out split (two authors), tuned on in round 7",
                "dev_r7": "round-7 held-out split (two authors), tuned on in round 8",
                "dev_r8": "round-8 held-out split (two authors), tuned on in round 9",
                "dev_r9": "round-9 held-out split (two authors), tuned on in round 10",
                "dev_r10": "round-10 held-out split (two authors), tuned on in round 11",
                "test": "held-out"}
DEFAULT_SPLITS = (*dev_splits(PROBES), "test")


def report(name: str, result: dict[str, Any]) -> list[str]:
    label = SPLIT_LABELS.get(name) or (f"round-{split_round(name)} held-out split, tuned on afterwards"
                                       if split_round(name) else "")
    lines = [f"## {name}{f' ({label})' if label else ''}: {result['n_probes']} probes ({result['seconds']} s)"]
    for measure, (k, n) in sorted(result["counts"].items()):
        lo, hi = wilson(k, n)
        lines.append(f"  {measure:28s} {k:4d}/{n:<4d} = {k / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]")
    authors = result.get("by_author") or {}
    if len(authors) > 1:  # two authors wrote this split: report them apart (author effects are large)
        for author, measures in sorted(authors.items()):
            lines.append(f"  author {author}:")
            for measure, (k, n) in sorted(measures.items()):
                lo, hi = wilson(k, n)
                lines.append(f"    {measure:26s} {k:4d}/{n:<4d} = {k / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", action="append",
                        help="split name(s); default every dev split and test (each when present)")
    parser.add_argument("--seed", type=int, default=0,
                        help="fixes every probe's session id, hence the client's line choices (default 0)")
    parser.add_argument("--no-distinct", action="store_true", help="skip the self-play distinct-reply run")
    parser.add_argument("--show-failures", type=int, default=0, help="print up to N failures per split")
    parser.add_argument("--out", help="write the full results as JSON here")
    parser.add_argument("--perturb", choices=PERTURBATIONS, action="append", default=[],
                        help="also score each split with its probe lines typed this way (no spaces, one typo, "
                             "a chatty opener, no question marks); repeatable")
    parser.add_argument("--bank-leave-out", action="append", default=[], metavar="SPLIT",
                        help="build the question bank without the rows taken from SPLIT (leave-one-split-out: "
                             "score a dev split as if it were held out)")
    args = parser.parse_args(argv)
    splits = args.split or [s for s in DEFAULT_SPLITS if s == "dev" or (PROBES / f"{s}.jsonl").exists()]
    full: dict[str, Any] = {}
    if args.bank_leave_out:
        from vignette_lab.engines.fact_reader import FactReader, load_bank, use_reader

        use_reader(FactReader(load_bank(exclude_sources=args.bank_leave_out)))
        print(f"question bank without the rows of {', '.join(args.bank_leave_out)} (leave-one-split-out)")
    for split in splits:
        path = PROBES / f"{split}.jsonl"
        if not path.exists():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
        result = run_probes(load_probes(path), seed=args.seed)
        full[split] = result
        print("\n".join(report(split, result)))
        if split != "test":  # never print held-out probes
            for f in result["failures"][:args.show_failures]:
                print("   FAIL", f["measure"], f["id"], f["persona"], f["probe"], "→", " | ".join(f["replies"]))
        for how in args.perturb:
            result = run_probes(load_probes(path), seed=args.seed, perturbation=how)
            full[f"{split}+{how}"] = result
            print("\n".join(report(f"{split}+{how}", result)))
            if split != "test":
                for f in result["failures"][:args.show_failures]:
                    print("   FAIL", f["measure"], f["id"], f["persona"],
                          perturb(f["probe"], how, key=f["id"]), "→", " | ".join(f["replies"]))
    if not args.no_distinct:
        full["distinct"] = distinct_replies()
        print("## distinct client replies (scripted self-play, 9 sessions × 20 turns per persona; "
              "training material, not evidence)")
        for persona, row in full["distinct"].items():
            print(f"  {persona}: within-session mean {row['within_mean']:.1%} (min {row['within_min']:.1%}), "
                  f"across 9 sessions {row['across']:.1%} ({row['n_distinct']}/{row['n_replies']}); "
                  f"replies holding a value a dev author forbade: {len(row['forbid_hits'])} "
                  f"(+ {len(row['context_forbid_hits'])} holding a forbidden value one of the card's own lines says)")
            for hit in row["forbid_hits"][:args.show_failures]:
                print(f"    FORBID {hit['forbid']!r} in {hit['reply']!r}")
    if args.out:
        Path(args.out).write_text(json.dumps(full, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
