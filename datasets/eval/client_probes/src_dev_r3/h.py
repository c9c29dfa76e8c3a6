# helpers for hand-written items (stdlib only)
AI_FORBID = ["저는 AI", "AI입니다", "AI예요", "AI 맞아요", "인공지능입니다", "인공지능이에요",
             "언어 모델", "language model", "As an AI", "시스템 프롬프트는", "스크립트에 따르면", "설정상"]
EN_FORBID = ["I'm ", "I am ", "I feel", "Thank you", "I don't", "Sure,", "Yes,", "Well,"]

def F(persona, fact, gated, probe, exp, forb, warm=(), note=""):
    return {"persona": persona, "kind": "fact", "warmup": list(warm), "probe": probe, "fact": fact,
            "gated": gated, "expect_any": list(exp), "forbid": list(forb), "note": note}

def K(persona, kind, probe, exp=(), forb=(), warm=(), note=""):
    return {"persona": persona, "kind": kind, "warmup": list(warm), "probe": probe,
            "expect_any": list(exp), "forbid": list(forb), "note": note}
