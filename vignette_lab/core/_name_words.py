"""Word lists shared by the PII gate's cues (:mod:`vignette_lab.core.pii`) and its learned name
decision (:mod:`vignette_lab.core.name_model`).

Both read the same lists: kept here so that neither module imports the other for them (the
gate imports the name model; the name model imports only this module and
:mod:`vignette_lab.core.morph`). ``bench/train_name_model.py`` trains with them, so a change
here means rerunning it (``core/name_model.json`` is tested against a rebuild).
"""

from __future__ import annotations

__all__ = ["_ADDRESS_TERMS", "_GIVEN", "_NOT_NAMES"]

#: words morphology tags as proper nouns that are not people (brands, places, schools)
_NOT_NAMES = frozenset("""
카톡 페북 틱톡 넷플 디코 트위터 인스타그램 페이스북 카카오톡 디스코드 텔레그램 유튜버 스레드 배민 요기요 쿠팡이츠 당근
신한 국민 농협 기업 하나 카뱅 토스 수협 신협 우체국 새마을 케이뱅크 카카오뱅크 토스뱅크 삼성 현대 엘지 기아
한부모 영어 일어 일본어 중국어 불어 독어 국어 한자 수학 과학 사회 미술 음악 체육 역사 도덕 우리 저희 친구 이웃 사촌 옆집
이마트 홈플러스 롯데 롯데월드 신세계 고려대 연세대 한양대 서울대 경희대 이화여대 성균관대 중앙대 홍대 강남역 신촌 이태원
명동 한강 남산 제주도 유튜브 카카오 네이버 구글 인스타 조선 한국 한국어 한국인 한국사 한글 조선일보 동아일보 유니클로
다이소 스타벅스 올리브영 배달의민족 쿠팡 당근마켓 넷플릭스 디즈니 마블 포켓몬 고양시 안양천 전학생 기말고사 중간고사
모의고사 수능 부산 대구 인천 광주 대전 울산 세종 경기 강원 충북 충남 전북 전남 경북 경남 제주 서울 일본 중국 미국
영국 독일 프랑스 호주 캐나다 베트남 필리핀 태국 러시아 인도 유럽 아시아 아프리카 추석 설날 크리스마스 성탄절 어린이날
어버이날 한가위 정월 뉴욕 도쿄 오사카 교토 후쿠오카 파리 런던 로마 베를린 베이징 상하이 홍콩 타이베이 방콕 하노이 호치민 다낭
마닐라 세부 발리 하와이 괌 시드니 토론토 밴쿠버 시애틀 보스턴 시카고 엘에이 유럽여행 싱가포르 두바이 몽골 대만 지피티 챗지피티 제미나이 클로드 시리 빅스비 알렉사 애플 주호소 주양육자 외동 외동딸 외아들 장남 장녀 차남 차녀 막내 첫째 둘째 셋째 늦둥이 월요일 화요일 수요일 목요일 금요일 토요일 일요일 주말 하나님 하느님 부처님 예수님 천주교 기독교 불교
""".split())
#: common two-syllable given names (a name in this list needs no help from morphology)
_GIVEN = frozenset("""
민준 서준 도윤 예준 시우 하준 주원 지호 지후 준우 준서 건우 도현 현우 지훈 우진 선우 서진 민재 현준 연우 유준 정우 승우
승현 시윤 준혁 은우 지환 승민 지우 유찬 윤우 민성 준영 시후 진우 지원 수호 재윤 시현 동현 태윤 민우 재원 한결 민호
성민 태민 준호 영민 상현 재민 동욱 성현 정민 현수 민수 지성 준수 태현 승준 재현 서윤 서연 지유 하윤 서현 하은 민서
지민 윤서 채원 수아 지아 다은 은서 예은 수빈 소율 예린 하린 지윤 유나 채은 가은 서아 예나 윤아 소윤 지안 하율 시아
유진 수민 민지 은채 소희 다연 나연 서영 예원 지은 혜원 수연 은지 현지 유리 하영 세아 아린 다인 채윤 나은 서우 연서
윤호 태호 동훈 성훈 상훈 재훈 민혁 지혁 현석 종현 승훈 준기 민기 석진 태양 준희 은호 시온
예서 주아 민경 수진 은비 혜진 보람 슬기 미진 지혜 은영 소연 정은 혜린 가윤 지수 하늘 세은 다현 채린 수현 은하 윤지
""".split())
#: terms of address and endearment people call out to or talk about (여보야, 자기야, 아가야): a closed
#: class of common words, never a person's name
_ADDRESS_TERMS = frozenset("""
여보 자기 당신 아가 애기 아기 얘 쟤 걔 자네 그대 임자 댁 꼬마 녀석 강아지 똥강아지 새끼 공주 왕자 이쁜이 예쁜이 귀염둥이
""".split())
