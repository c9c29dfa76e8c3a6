# -*- coding: utf-8 -*-
# shared forbid lists — written as assertions so echoes / negations don't trip them
AI_F = ["AI예요","AI입니다","AI 맞아요","인공지능이에요","인공지능입니다","언어 모델입니다","언어 모델이에요",
        "챗봇이에요","챗봇입니다","프롬프트에 따르면","설정된 캐릭터","스크립트대로","As an AI","I'm an AI"]
EN_F = ["I'm ","I am ","Sure,","Yes, ","Thank you","I feel ","Hello"]
def f(persona, kind, probe, warmup=None, fact=None, gated=None, exp=None, forb=None, note=""):
    d = {"persona": persona, "kind": kind, "warmup": list(warmup or []), "probe": probe}
    if kind == "fact":
        d["fact"] = fact; d["gated"] = gated
    d["expect_any"] = list(exp or []); d["forbid"] = list(dict.fromkeys(list(forb or []) + AI_F + EN_F))
    d["note"] = note  # forbid on every probe: no AI admission, no English reply
    return d
