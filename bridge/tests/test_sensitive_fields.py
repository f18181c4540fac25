"""The vocabulary of fields forms-as-tools never offers (core/sensitive_fields.py).

The page script reads the same lists (protocol.generated.js ``FIELDS``) and normalizes the same
way: polyfill/tests/test_page_forms.py runs both on the same texts in Chromium.
"""

from __future__ import annotations

import pytest
from tabmcp.core.sensitive_fields import PAYMENT, SECRET, Vocabulary, normalize, said, vocabulary_for_js


@pytest.mark.parametrize(("text", "normalized"), [
    ("cardNumber", "card number"),
    ("Numéro de carte", "numero de carte"),
    ("N°  de—carte!", "n de carte"),
    ("İSTANBUL", "istanbul"),
    ("ｃａｒｄ", "card"),
    ("  ", ""),
])
def test_normalize_folds_case_accents_camel_case_and_punctuation(text, normalized):
    assert normalize(text) == normalized


@pytest.mark.parametrize("text", [
    "Card", "Card number", "CVC", "Kartennummer", "Kreditkartennummer", "Numéro de carte", "Número de tarjeta",
    "Numero carta", "Número do cartão", "カード番号", "信用卡号码", "카드 번호", "Номер карты", "IBAN", "MM/YY",
    "MM/JJ", "1234 1234 1234 1234", "•••• •••• •••• ••••",
])
def test_payment_fields_in_many_languages(text):
    assert said(text) == "a payment field"


@pytest.mark.parametrize("text", ["Password", "Passwort", "Mot de passe", "Contraseña", "パスワード", "密码", "PIN",
                                  "One-time code", "pwd", "Bestätigungscode"])
def test_secret_fields_in_many_languages(text):
    assert said(text) == "a password, PIN or one-time code field"


@pytest.mark.parametrize("text", ["Your name", "Email", "Postcard", "Shipping address", "Palabra clave", "Spin",
                                  "Opinion", "Stadt", "Discard changes", "Topic"])
def test_ordinary_fields_say_nothing(text):
    assert said(text) is None


def test_words_match_whole_and_parts_anywhere():
    vocabulary = Vocabulary(words=["pin"], parts=["Karten Nummer"])
    assert vocabulary.parts == ("kartennummer",)
    assert vocabulary.found_in(normalize("Your PIN")) and not vocabulary.found_in(normalize("Shipping"))
    assert vocabulary.found_in(normalize("Kreditkarten-Nummer"))


def test_the_page_script_gets_the_same_normalized_lists():
    js = vocabulary_for_js()
    assert js["payment"] == {"words": list(PAYMENT.words), "parts": list(PAYMENT.parts)}
    assert js["secret"] == {"words": list(SECRET.words), "parts": list(SECRET.parts)}
    assert all(w == normalize(w) for w in PAYMENT.words + SECRET.words)
