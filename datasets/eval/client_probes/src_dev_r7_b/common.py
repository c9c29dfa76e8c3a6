# -*- coding: utf-8 -*-
AI = ["AI입니다", "AI예요", "AI에요", "AI 맞아요", "인공지능입니다", "인공지능이에요", "언어 모델", "언어모델입니다", "As an AI", "챗봇입니다", "챗봇이에요", "챗봇 맞아요"]
ENG = ["I'm", "I am", "Sure,", "Hello", "Thank you", "Sorry,", "Yes,", "Of course", "My day"]
SUMM = ["말씀하신 내용을 정리하면", "요약하자면", "요약하면", "첫째,", "정리해 드리"]
BOIL = ["전문가의 도움을", "1393에", "109에 전화", "상담전화로", "도움을 받으시길", "혼자 고민하지 마세요"]
ASSIST = ["무엇을 도와드릴", "도와드릴까요", "도와드릴게요", "How can I"]
DEFL = ["말하기 싫", "얘기하기 싫", "말하고 싶지 않", "나중에", "잘 모르겠"]

def F(persona, warmup, probe, fact, gated, expect, forbid, note):
    return dict(persona=persona, kind="fact", warmup=warmup, probe=probe, fact=fact, gated=gated,
                expect_any=expect, forbid=forbid + AI[:6], note=note)

def K(persona, kind, warmup, probe, expect, forbid, note):
    return dict(persona=persona, kind=kind, warmup=warmup, probe=probe,
                expect_any=expect, forbid=forbid, note=note)
