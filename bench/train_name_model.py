"""Train the PII gate's learned person-name model (``vignette_lab/core/name_model.json``).

Usage::

    python bench/train_name_model.py                      # every dev split
    python bench/train_name_model.py --exclude dev_r7     # leave a split out entirely (LOSO figure)

Training data: synthetic sentences from templates (names built from surname and given-name
syllables; the same frames filled with common nouns as negatives), plus every PII dev split
(its person-name values are positives, every other word-start candidate a negative, candidates
overlapping another kind of PII ignored), plus every ``clean_dev*`` sentence and the persona-card
and counselor-bank lines (training material, not evidence) as negatives. ``test.jsonl`` /
``clean_test.jsonl`` are never read.

Threshold, by leave-one-split-out: for each dev split, a model trained without that split (and
without its clean file) scores the held-out clean sentences; the threshold is just above the
highest held-out clean score of any fold, so no clean sentence of a left-out split would have
been altered by the model (sentences the cue rules alone already alter are left out of that
maximum: they are the rules' failures and are reported by the corpus test). The final model is trained on everything and uses that threshold. The script
prints, per fold, the held-out names the learned model alone finds at that threshold.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from sklearn.feature_extraction import DictVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from test_pii_corpus import CLEAN_DEV_FILES, DEV_FILES, PII_DIR, _jsonl, material_lines  # noqa: E402

from vignette_lab.core import name_model as nm  # noqa: E402
from vignette_lab.core.pii import _GIVEN, _NAME_SYL, _NOT_NAMES, _SURNAMES_1, _WORD_MEANING, _verb_read_as_name, mask_pii  # noqa: E402,E501

SUR_COMMON = "김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설"

#: frames with a name slot: {g} a given name (+ 이 when it ends in a batchim, as people say it),
#: {f} a full name, {x} the bare given name
TEMPLATES = """
{g}가 요즘 저랑 말을 안 해요
어제 {g}랑 같이 집에 갔어
{x}아 오늘 뭐 해
{x}야 괜찮아?
저는 {f}이라고 합니다
제 이름은 {f}입니다
{f} 씨가 먼저 연락했어요
{f} 선생님이 그러셨어요
{x} 씨는 어떻게 생각하세요
친구 {g}가 자꾸 놀려요
동생 {x}는 아직 어려요
{g}한테 말했는데 무시당했어요
{g}는 제 편이 아니에요
우리 반 {g}도 그렇게 말했어요
{f}이랑 {f2}이 싸웠어요
담임은 {f} 선생님이에요
{x} 언니가 도와줬어요
{x} 님 안녕하세요
상담 신청자 {f}입니다
{f} 학생 보호자예요
엄마 이름은 {f}예요
남친 {x}가 연락이 안 돼요
{g}네 엄마가 전화하셨어요
아 {x}야 그만해
{f}님께 전달 부탁드려요
오늘 {g}를 봤는데 울고 있었어요
{g}의 말이 아직도 생각나요
{f}한테서 문자가 왔어요
그때 {g}하고 둘이 있었어요
{x}이 형이 그랬어요
{x} 요즘 연락이 안 돼요
{x} 걔 진짜 이상해요
근데 {g}가 먼저 그랬어요
솔직히 {g}는 잘 모르겠어요
그래서 {g}한테 사과했어요
{x}언니가 도와줬어요
{x}오빠랑 같이 왔어요
{x}네 집에서 잤어요
{g}랑은 이제 안 놀아요
{g}도 같이 갔어요
{g}만 저를 이해해줘요
{x}, 걔가 제일 친해요
{f} 걔랑 헤어졌어요
저 {f}인데요
{f}이고요 고2예요
{f}가 제 담임이에요
{f}라고 아세요
{x}이 보고 싶어요
{x}이는 요즘 어때요
{x}이가 울었어요
{f2} 그리고 {f} 둘이 친해요
{g}가요 저한테 소리쳤어요
{g}는요 아직 몰라요
{g}한테요 제가 먼저 말했어요
아 그 {x}? 걔 원래 그래
그 {x}? 요즘 안 보이던데
{f} 가 제일 무서워요
그냥 {x} 라고 불러요
제 친구 {x} 랑 같이 다녀요
지금은 {f} 인데 바꾸고 싶어요
남편 이름은 {f} 이에요
{x} 이랑 {x2} 이랑 싸웠어요
"""

#: frames where a common word that is also a given name (보람, 한결, 나래) takes the 이 people add
#: to a name ending in a batchim, then a particle: 보람이가, 한결이는 (a common noun takes the
#: particle directly: 보람이 있다, 한결은 …)
HYPO_TEMPLATES = """
{h}이가 요즘 말이 없어요
{h}이는 중2예요
어제 {h}이랑 싸웠어요
{h}이한테 전화했어요
{h}이도 같이 왔어요
"""

#: frames with a noun slot: the same particles and positions, filled with common nouns
NOUN_TEMPLATES = """
{n} 요즘 너무 힘들어요
어제 {n} 때문에 울었어
저는 {n} 얘기를 하고 싶어요
{n}랑 같이 있으면 편해요
{n}한테 말하기가 어려워요
{n}는 별로 안 중요해요
{n}도 그렇게 생각해요
{n} 씨앗을 심었어요
{n}의 의미를 모르겠어요
그때 {n}하고 둘이 있었어요
{n}이라는 말이 좋아요
{n}라는 단어를 오늘 배웠어요
{n}이라는 뜻이래요
{n}라는 이름의 카페에 갔어요
{v} 이리 와
{v} 밥 먹자
{v}, 괜찮아?
{s} 너무 맑아서 좋았어요
{s} 자꾸 생각나요
{s} 제일 중요한 것 같아요
{s} 없어서 힘들어요
{n} 요즘 어때요
{n}만 있으면 돼요
{n}도 같이 갔어요
{s}요 진짜 힘들어요
{n}는 집에서 쉬었어요
그러고 {n}는 집에 갔어요
{c}?
{c}? 그게 무슨 말이야
아 {c}? 몰랐어
{n} 이 문제예요
그게 다 {n} 때문이에요
{n}이라는 말이 좋은 뜻이래요
그 {n}? 그거 원래 그래
아 그 {n}? 요즘 안 하던데
"""

#: foreign given names in Hangul (synthetic positives: names need not use Korean name syllables)
FOREIGN = """마이클 데이비드 사라 에밀리 케빈 브라이언 토마스 안나 마리아 리사 제임스 다니엘 올리비아 소피아
유키 하루토 사쿠라 아키라 켄지 미유 투이 린 응옥 왕웨이 리나 아미르 파티마 조슈아 니콜 이반 나타샤 올가 루카스 엠마
앤드류 크리스 매튜 스티븐 에릭 제시카 레베카 줄리아 카밀라 이사벨라 빅토리아 알리나 세르게이 드미트리 아냐 마리나
하이 흐엉 마이 란 짱 후엔 민투 아야카 유이 하나코 타쿠야 료 소라 메이 샤오밍 리우 천위 아흐메드 무하마드 라일라
오마르 사미르 카림 누르 라훌 프리야 아르준 조이 벨라 클로이 그레이스 루시 노아 리암 에단 해리 잭 올리버
알렉산더 렉시 제시 제인 제니 니콜라스 스테파니 크리스티나 빅터 나디아 타티아나 안드레이 알렉세이 세바스찬 헨리 레오
줄리앙 마르코 파블로 호세 카를로스 루이스 알리 하산 유수프 아이샤 소피 샬롯 에바 미아 로라 케이트 존 마크 피터 폴""".split()

NOUNS = """학교 친구 가족 엄마 아빠 공부 시험 성적 숙제 학원 회사 직장 상사 동료 남편 아내 선생 상담 마음 생각 기분 걱정
불안 우울 하루 오늘 내일 주말 방학 여름 겨울 바다 하늘 사랑 희망 미래 진로 대학 수능 모의 점수 등수 교실 복도 운동
축구 게임 유튜브 음악 노래 그림 일기 편지 문자 카톡 사진 영상 동생 언니 오빠 누나 할머니 할아버지 강아지 고양이 지하철
버스 택시 병원 약국 약속 시간 돈 용돈 알바 월급 전화 소리 잠 밥 저녁 아침 점심 수업 과제 발표 면접 연애 이별 결혼 이혼
정리 준비 연습 노력 실수 후회 눈물 웃음 화 짜증 스트레스 습관 자존감 관계 갈등 대화 침묵 진주 보람 한결 지혜 은혜 소망
수정 태양 정의 별 솔 이슬 나래 다솜 미소 하나 우리 서로 모두 사람 마을 동네 시내 지금 진짜 정말 조금 많이""".split()

#: loanwords in Hangul (a transliterated common word is no foreign name: 트레이니, 스트레스)
LOANWORDS = """트레이니 트레이너 스트레스 프로그램 카페 미팅 리더 멘토 멘티 레벨 파트너 매니저 캠프 클럽 코치 피드백
세션 케이스 리포트 테스트 스케줄 아르바이트 인턴 레슨 파티 데이트 커플 스타일 패턴 밸런스 루틴 리스트 메시지 이메일
카톡방 단톡방 게임기 노트북 핸드폰 스마트폰 컴퓨터 태블릿 이어폰 마스크 다이어트 헬스 요가 필라테스 댄스 밴드 드라마
애니 웹툰 유튜브 브이로그 인스타 스토리 릴스 피드 라이브 채널 플랫폼 앱 로그인 비밀번호 패스 티켓 버스킹 콘서트""".split()
NOUNS += LOANWORDS

#: sentences ending in the exclamative -네 after a verb stem (비오네, 잘하네): no 네 of a family
EXCLAIM = """비오네 | 오늘 비오네 | 눈오네 진짜 | 바람 부네요 | 벌써 가네 | 시간 빠르네 | 하루가 기네요 | 말 잘 듣네 |
진짜 잘하네 | 기분 좋네 | 예쁘네 | 서운하네요 | 마음 아프네 | 배고프네 | 재밌네 | 다르네요 | 이제 오네 | 잘 되네 |
비가 오네요 | 많이 크네 | 차 막히네 | 또 우네 | 또 지네 | 잘 자네 | 일찍 오셨네요 | 많이 하시네요 | 잘 버티네 | 금방 식네""".replace("\n", " ").split(" | ")

#: common nouns people call out to (강아지야, 아가야): negatives for the vocative frames
VOCATIVE_NOUNS = """강아지 고양이 아가 애기 아기 친구 동생 얘 자기 여보 멍멍이 야옹이 토끼 병아리 꼬마 녀석 바보 새끼 아들 딸
막내 누렁이 햄찌 거북이 앵무새 선배 후배 언니 오빠 누나 형 엄마 아빠 할머니 할아버지 이모 삼촌""".split()


def _josa(word: str, with_batchim: str, without: str) -> str:
    return word + (with_batchim if nm._batchim(word[-1]) else without)


def _made_name(rng: random.Random, syl: list[str]) -> str:
    """Two given-name syllables that morphology does not read as one common word (not 상담, 사랑)."""
    while True:
        x = rng.choice(syl) + rng.choice(syl)
        toks = nm._morph(x)
        if not (len(toks) == 1 and not toks[0][3] and not toks[0][2].startswith("NNP")):
            return x


def synthetic(rng: random.Random, n: int) -> list[tuple[str, list[str]]]:
    """Sentences with name slots filled by generated names: (text, names listed)."""
    syl = sorted(_NAME_SYL)
    given = sorted(_GIVEN)
    frames = [t for t in TEMPLATES.strip().splitlines() if t.strip()]
    out = []
    for _ in range(n):
        t = rng.choice(frames)
        r = rng.random()
        x = rng.choice(given) if r < 0.45 else rng.choice(FOREIGN) if r < 0.6 else _made_name(rng, syl)
        full = rng.choice(SUR_COMMON) + (rng.choice(given) if rng.random() < 0.5 else _made_name(rng, syl))
        full2 = rng.choice(SUR_COMMON) + _made_name(rng, syl)
        g = _josa(x, "이", "")
        text = t.replace("{g}", g).replace("{x}", x).replace("{f2}", full2).replace("{f}", full)
        x2 = rng.choice(given)
        text = text.replace("{x2}", x2)
        names = [v for v, key in ((x, "{g}"), (x, "{x}"), (x2, "{x2}"), (full, "{f}"), (full2, "{f2}")) if key in t]
        out.append((text, names))
    hframes = [t for t in HYPO_TEMPLATES.strip().splitlines() if t.strip()]
    name_words = [w for w in NOUNS[NOUNS.index("진주"):NOUNS.index("하나")] if len(w) >= 2 and nm._batchim(w[-1])]
    for _ in range(n // 10):
        h = rng.choice(name_words)
        out.append((rng.choice(hframes).replace("{h}", h), [h]))
    nframes = [t for t in NOUN_TEMPLATES.strip().splitlines() if t.strip()]
    for _ in range(n // 2):
        t = rng.choice(nframes)
        word = rng.choice(NOUNS) if "말이" not in t and "단어" not in t and "뜻" not in t and "카페" not in t else \
            rng.choice(NOUNS + [_made_name(rng, syl) for _ in range(3)])
        if "{v}" in t:  # a common noun called out: 강아지야, 아가야 (vocative 아/야 by batchim)
            word = _josa(rng.choice(NOUNS + VOCATIVE_NOUNS), "아", "야")
        elif "{s}" in t:  # a common noun as subject: 하늘이, 엄마가 (이/가 by batchim)
            word = _josa(rng.choice(NOUNS), "이", "가")
        elif "{c}" in t:  # a common noun with the copula, asked: 정말이야? 학교야?
            word = _josa(rng.choice(NOUNS), "이야", "야")
        out.append((t.replace("{n}", word).replace("{v}", word).replace("{s}", word).replace("{c}", word), []))
    return out


#: how many of the most frequent syllables of everyday text (clean sentences, cards, bank) are no
#: name syllables unless Korean given names use them (_NAME_SYL, _GIVEN): 그, 일, 해, 로 … would
#: make a candidate of nearly every word (이야기, 제일, 그래) and cost time for nothing
COMMON_SYLLABLES = 60


def name_syllables(rows: list[dict], everyday: list[str]) -> frozenset[str]:
    korean = set(_NAME_SYL) | set("".join(_GIVEN))
    syls = set("".join(FOREIGN))
    for r in rows:
        if r["category"] == "person_name":
            for v in r["pii"]:
                if 2 <= len(v) <= 4 and all("가" <= ch <= "힣" for ch in v):
                    syls.update(v[1:] if v[0] in _SURNAMES_1 and len(v) == 3 else v)
    freq = Counter(ch for t in everyday for ch in t if "가" <= ch <= "힣")
    common = {ch for ch, _ in freq.most_common(COMMON_SYLLABLES)}
    return frozenset(korean | (syls - common))


def examples(text: str, names: list[str], other: list[str], syls: frozenset[str]):
    """(features, label) of every candidate of ``text``; ``names`` are positives, candidates
    overlapping ``other`` values (PII of another kind) are skipped."""
    pos: set[tuple[int, int]] = set()
    for v in names:
        i = text.find(v)
        while i >= 0:
            pos.add((i, i + len(v)))
            i = text.find(v, i + 1)
    blocked: list[tuple[int, int]] = []
    for v in other:
        i = text.find(v)
        while i >= 0:
            blocked.append((i, i + len(v)))
            i = text.find(v, i + 1)
    for s, k, e in nm.candidates(text, syls):
        span = (s, s + k)
        if span not in pos and any(a < s + k and s < b for a, b in blocked):
            continue
        feats = nm.features(text, s, k, e, name_syllables=syls, given=_GIVEN, not_names=_NOT_NAMES)
        yield {f: 1 for f in feats}, int(span in pos)


def split_examples(pii_rows: list[dict], clean_rows: list[str], syls: frozenset[str]):
    X, y = [], []
    for r in pii_rows:
        names = r["pii"] if r["category"] == "person_name" else []
        other = [] if names else r["pii"]
        for f, lab in examples(r["text"], names, other, syls):
            X.append(f)
            y.append(lab)
    for t in clean_rows:
        for f, lab in examples(t, [], [], syls):
            X.append(f)
            y.append(lab)
    return X, y


def fit(X, y):
    vec = DictVectorizer()
    M = vec.fit_transform(X)
    clf = LogisticRegression(C=0.5, max_iter=2000, class_weight={0: 1.0, 1: 3.0})
    clf.fit(M, y)
    w = {name: float(c) for name, c in zip(vec.feature_names_, clf.coef_[0]) if abs(c) > 1e-6}
    w["bias"] = w.get("bias", 0.0) + float(clf.intercept_[0])
    return w


def max_clean_score(texts: list[str], w: dict[str, float], syls: frozenset[str]) -> tuple[float, str]:
    """The highest model score of a clean candidate the gate would mask: the gate drops a learned span
    that is a listed non-name, a word being explained or a verb in its sentence (``core/pii.py``), so those set no
    threshold."""
    best, where = -1e9, ""
    for t in texts:
        for s, k, e in nm.candidates(t, syls):
            if t[s:s + k] in _NOT_NAMES or _WORD_MEANING.match(t, s + k) or _verb_read_as_name(t, s, s + k):
                continue
            v = sum(w.get(f, 0.0) for f in nm.features(t, s, k, e, name_syllables=syls, given=_GIVEN,
                                                         not_names=_NOT_NAMES))
            if v > best:
                best, where = v, f"{t[s:s + k]} in {t!r}"
    return best, where


#: dev splits kept out of the shipped model. Round 10's split (dev_r11) raised the leave-one-split-out threshold
#: 1.905 -> 3.176 when trained on in the eleventh session (its fold's clean max was 안나 in "생각이 안나네", a verb
#: the gate drops). The twelfth session fixed dev_r11's misses by class in the gate and lets the threshold skip
#: spans the gate drops as verbs (_verb_read_as_name): the dev_r11 fold's clean max falls to 0.57 (바다 in "바다 보고
#: 싶어요"), but trained on dev_r11 the other folds rise (dev_r5: 한빛 in "한빛이 들어오는 창가" 0.38 -> 2.82; dev_r10:
#: 빛나 in "빛나라고 선생님이 그랬어" 1.41 -> 2.41), so the threshold is 3.073 and the gate masks 908 dev names
#: instead of 926 (dev_r6 -1, dev_r7 -5, dev_r8 -1, dev_r9 -4, dev_r10 -4, dev_r11 -3), 0 clean altered either way.
#: Kept held back until those readings are told apart. ``--include-held-back`` trains on it anyway (to measure).
HELD_BACK = ("dev_r11",)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include-held-back", action="store_true", help=f"also train on {', '.join(HELD_BACK)}")
    ap.add_argument("--exclude", action="append", default=[], help="dev split to leave out entirely (e.g. dev_r7)")
    ap.add_argument("--out", type=Path, default=nm.MODEL_PATH)
    ap.add_argument("--margin", type=float, default=0.25)
    args = ap.parse_args()
    if not args.include_held_back:
        args.exclude += [s for s in HELD_BACK if s not in args.exclude]
    splits = [(d.removesuffix(".jsonl"), _jsonl(PII_DIR / d), [r["text"] for r in _jsonl(PII_DIR / c)])
              for d, c in zip(DEV_FILES, CLEAN_DEV_FILES) if d.removesuffix(".jsonl") not in args.exclude]
    rng = random.Random(13)
    synth = synthetic(rng, 3000)
    material = material_lines()
    all_rows = [r for _, rows, _ in splits for r in rows]
    syls = name_syllables(all_rows, material + [t for _, _, clean in splits for t in clean])
    Xs, ys = [], []
    for text, names in synth:
        for f, lab in examples(text, names, [], syls):
            Xs.append(f)
            ys.append(lab)
    Xm, ym = split_examples([], material + [t.strip() for t in EXCLAIM], syls)
    per_split = {name: split_examples(rows, clean, syls) for name, rows, clean in splits}
    thresholds = []
    for name, rows, clean in splits:
        X = Xs + Xm + [f for o, (Xo, _) in per_split.items() if o != name for f in Xo]
        y = ys + ym + [lab for o, (_, yo) in per_split.items() if o != name for lab in yo]
        w = fit(X, y)
        nm.set_model({}, float("inf"), syls)  # the cue rules alone: sentences they already alter are their failures
        rule_altered = {t for t in clean if mask_pii(t, backend="regex").text != t}
        top, where = max_clean_score([t for t in clean if t not in rule_altered], w, syls)
        thr = top + args.margin
        nm.set_model(w, thr, syls)
        found = sum(1 for r in rows if r["category"] == "person_name"
                    and all(any(text_span == v for text_span in (r["text"][a:b] for a, b in nm.learned_name_spans(r["text"])))
                            for v in r["pii"]))
        n_names = sum(r["category"] == "person_name" for r in rows)
        print(f"fold {name}: held-out clean max {top:.2f} ({where}); at that threshold the model alone finds "
              f"{found}/{n_names} held-out person_name cases")
        thresholds.append(thr)
    threshold = max(thresholds)
    X = Xs + Xm + [f for Xo, _ in per_split.values() for f in Xo]
    y = ys + ym + [lab for _, yo in per_split.values() for lab in yo]
    w = fit(X, y)
    args.out.write_text(json.dumps({
        "about": "PII gate person-name model (logistic regression); trained by bench/train_name_model.py on "
                 f"synthetic sentences + dev splits {[s[0] for s in splits]}; threshold by leave-one-split-out",
        "threshold": round(threshold, 4),
        "name_syllables": "".join(sorted(syls)),
        "weights": {k: round(v, 4) for k, v in sorted(w.items())},
    }, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"threshold {threshold:.3f}; {len(w)} weights; {sum(y)} positives / {len(y)} candidates -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
