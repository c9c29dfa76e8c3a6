"""Write the synthetic published-style MI corpus in ``datasets/examples/`` (deterministic).

The layout follows public motivational-interviewing corpora (one row per utterance per
annotator, a therapist code column and a client code column, ``n/a`` where a code does not
apply). Every utterance, transcript and annotator is invented; the codes come from a simple
rater model (each annotator reports the utterance's true code with probability ``accuracy``,
otherwise a random other code), so agreement is moderate to substantial by construction.

Run: ``python scripts/make_mi_example_corpus.py`` (rewrites the CSV; seed fixed).
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "datasets" / "examples" / "mi_corpus.csv"
THERAPIST = {
    "reflection": ["It sounds like {t} has been weighing on you lately.",
                   "You're feeling torn about {t}.",
                   "So part of you wants to change {t}, and part of you isn't sure.",
                   "You've noticed {t} getting in the way of things you care about."],
    "question": ["What would you like to be different about {t}?",
                 "How does {t} fit into a normal day for you?",
                 "What worries you most about {t}?",
                 "On a scale from 0 to 10, how important is changing {t} to you?"],
    "therapist_input": ["Some people find it helps to set a small goal around {t} first.",
                        "One option with {t} is to keep a short diary for a week.",
                        "The guidelines suggest that cutting back on {t} lowers the risk a lot.",
                        "If you like, I can share what others have tried with {t}."],
    "other": ["Thanks for coming in today.", "Okay.", "Let's pick this up next week.",
              "Mm-hmm."],
}
CLIENT = {
    "change": ["I really want to get {t} under control.", "I think I could cut down on {t}.",
               "My kids are the reason I want to stop {t}.", "I'm ready to try something with {t}."],
    "neutral": ["I work at the warehouse most days.", "I guess so.", "It was a Tuesday, I think.",
                "My sister came over last weekend."],
    "sustain": ["Honestly, {t} is the only thing that helps me relax.",
                "I don't see why {t} is such a big deal.", "I've tried to stop {t} before and it never works.",
                "Everyone I know does {t}, it's normal."],
}
TOPICS = ["smoking", "drinking", "exercise", "diet", "medication adherence", "gambling"]


def _code(rng: random.Random, true: str, codes: list[str], accuracy: float) -> str:
    if rng.random() < accuracy:
        return true
    return rng.choice([c for c in codes if c != true])


def main() -> None:
    rng = random.Random(20261201)
    rows = []
    annotators_all = [f"ann{i:02d}" for i in range(1, 11)]
    accuracy = {a: 0.80 + 0.015 * i for i, a in enumerate(annotators_all)}
    for tid in range(1, 7):
        topic = TOPICS[tid - 1]
        n_ann = 10 if tid <= 2 else rng.choice([2, 3])
        annotators = annotators_all if n_ann == 10 else rng.sample(annotators_all, n_ann)
        n_utt = 24
        for uid in range(n_utt):
            therapist = uid % 2 == 0
            pool = THERAPIST if therapist else CLIENT
            weights = [0.35, 0.35, 0.2, 0.1] if therapist else [0.4, 0.35, 0.25]
            true = rng.choices(list(pool), weights=weights)[0]
            text = rng.choice(pool[true]).format(t=topic)
            for ann in annotators:
                code = _code(rng, true, list(pool), accuracy[ann])
                rows.append({
                    "transcript_id": tid, "utterance_id": uid,
                    "interlocutor": "therapist" if therapist else "client",
                    "timestamp": f"00:{uid // 2:02d}:{(uid * 17) % 60:02d}",
                    "utterance_text": text, "annotator_id": ann,
                    "main_therapist_behaviour": code if therapist else "n/a",
                    "client_talk_type": "n/a" if therapist else code,
                    "topic": topic})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"{OUT}: {len(rows)} rows")


if __name__ == "__main__":
    main()
