"""What makes a form field one that forms-as-tools never offers: secrets and payment, in many languages.

One vocabulary for both sides of the rule (the page script gets it through ``protocol.generated.js``),
matched the same way: normalized text, whole *words*, and *parts* anywhere for compounds and scripts
without spaces. It errs on the side of refusing (a "Gift card" form is refused too).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .js_regex import JsPattern

__all__ = [
    "AUTOCOMPLETE_GAPS",
    "AUTOCOMPLETE_PAYMENT_PREFIX",
    "AUTOCOMPLETE_SECRET",
    "CARD_DIGITS",
    "CARD_SHAPE",
    "PAYMENT",
    "PAYMENT_CONTEXT",
    "SECRET",
    "Vocabulary",
    "card_pattern",
    "normalize",
    "said",
    "secret_autocomplete",
    "vocabulary_for_js",
]

AUTOCOMPLETE_SECRET = ("current-password", "new-password", "one-time-code")
"""``autocomplete`` tokens of a secret field."""

AUTOCOMPLETE_GAPS = JsPattern(r"[\s\x1c-\x1f\x85]+")
"""What separates an ``autocomplete`` attribute's tokens: ECMA's and Python's whitespace together
(each calls some characters space that the other does not), so both sides read the same tokens."""

AUTOCOMPLETE_PAYMENT_PREFIX = "cc-"
"""``autocomplete`` tokens that start so are payment card fields (``cc-number``, ``cc-csc``, ...)."""

CARD_SHAPE = r"^(?:[0-9\u2022*xX]{4}[ -]?){3}[0-9\u2022*xX]{1,7}$"
"""A placeholder (or a description made of one) shaped like a card number, in any language:
``1234 1234 1234 1234``, ``•••• •••• •••• ••••``, ``XXXX-XXXX-XXXX-XXXX`` (Python and JS syntax alike)."""

CARD_DIGITS = r"\{1[3-9](,\d*)?\}|\{\d*,1[3-9]\}"
"""A ``pattern`` that asks for 13 to 19 of something (digits, in practice): a card number."""

_CARD_DIGITS = re.compile(CARD_DIGITS)

_AUTOCOMPLETE_GAPS = AUTOCOMPLETE_GAPS.python()

_CARD_SHAPE = re.compile(CARD_SHAPE)

_CAMEL = re.compile(r"([a-z])([A-Z])")


def normalize(text: object) -> str:
    """The text as the vocabulary is matched against it (the same steps as form_guard.js ``normalize``)."""
    spaced = _CAMEL.sub(r"\1 \2", str(text or "")).lower()
    decomposed = unicodedata.normalize("NFKD", spaced)
    plain = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    out: list[str] = []
    gap = False
    for c in plain:
        if unicodedata.category(c)[0] in "LN":
            if gap and out:
                out.append(" ")
            out.append(c)
            gap = False
        else:
            gap = True
    return "".join(out)


class Vocabulary:
    """Words matched whole, parts matched anywhere (spaces removed), both normalized once."""

    def __init__(self, words: Iterable[str], parts: Iterable[str] = ()) -> None:
        self.words = tuple(dict.fromkeys(w for w in (normalize(x) for x in words) if w))
        self.parts = tuple(dict.fromkeys(p for p in (normalize(x).replace(" ", "") for x in parts) if p))

    def found_in(self, normalized: str) -> bool:
        """Whether ``normalized`` (see :func:`normalize`) says one of the words or parts."""
        if not normalized:
            return False
        padded = f" {normalized} "
        if any(f" {w} " in padded for w in self.words):
            return True
        joined = normalized.replace(" ", "")
        return any(p in joined for p in self.parts)

    def to_js(self) -> dict[str, list[str]]:
        return {"words": list(self.words), "parts": list(self.parts)}


PAYMENT = Vocabulary(
    words=(
        # English (a field that says just "Card" is a card field)
        "card", "cards", "card number", "card no", "card num", "card holder", "cardholder", "name on card",
        "credit card", "debit card", "cvv", "cvv2", "cvc", "cvc2", "csc", "cid", "security code",
        "card security code", "card verification", "expiry", "expiry date", "expiration", "expiration date",
        "expires", "exp date", "exp month", "exp year", "exp mm", "exp yy", "mm yy", "mm yyyy", "valid thru",
        "mm jj", "mm aa", "mm rr", "mm jjjj", "mm aaaa", "valid through", "iban", "bic", "swift", "swift code",
        "routing number", "sort code",
        "account number",
        "cc number", "cc num", "cc no", "cc exp", "cc csc", "cc cvv", "cc cvc",
        # German
        "karte", "kartennummer", "kreditkarte", "karteninhaber", "prüfnummer", "prüfziffer",
        "kartenprüfnummer",
        "ablaufdatum", "gültig bis", "sicherheitscode", "kontonummer", "bankleitzahl", "blz",
        # French
        "carte", "numéro de carte", "n° de carte", "carte bancaire", "carte de crédit", "cryptogramme",
        "cryptogramme visuel", "date d'expiration", "date de validité", "titulaire de la carte",
        "code de sécurité", "rib",
        # Spanish
        "tarjeta", "número de tarjeta", "tarjeta de crédito", "tarjeta de débito", "código de seguridad",
        "fecha de caducidad", "fecha de vencimiento", "caducidad", "vencimiento", "titular de la tarjeta",
        "número de cuenta",
        # Italian
        "carta", "numero carta", "numero di carta", "carta di credito", "scadenza", "codice di sicurezza",
        "titolare della carta",
        # Portuguese
        "cartão", "número do cartão", "cartão de crédito", "validade", "código de segurança",
        # Dutch
        "kaartnummer", "bankkaart", "creditcard", "vervaldatum", "beveiligingscode", "rekeningnummer",
        # Polish
        "karta", "karty", "numer karty", "karta kredytowa", "data ważności", "kod bezpieczeństwa",
        # Nordic
        "kortnummer", "kreditkort", "betalkort", "kortet", "utgångsdatum", "utløpsdato", "udløbsdato",
        # Turkish
        "kart numarası", "kredi kartı", "son kullanma", "son kullanma tarihi", "güvenlik kodu",
        # Indonesian, Malay, Vietnamese
        "kartu", "nomor kartu", "kartu kredit", "nombor kad", "số thẻ", "thẻ tín dụng",
        # Russian, Ukrainian
        "карта", "карты", "номер карты", "срок действия", "картка", "номер картки",
        # Greek
        "κάρτα", "αριθμός κάρτας",
        # Arabic, Hebrew, Hindi, Thai
        "بطاقة", "البطاقة", "رقم البطاقة", "כרטיס אשראי", "מספר כרטיס", "कार्ड", "บัตร", "หมายเลขบัตร",
    ),
    parts=(
        "cardnumber", "cardholder", "creditcard", "debitcard", "cardverification", "cardsecurity", "cardexp",
        "ccnumber", "ccnum", "ccexp", "cccsc", "cccvv", "cccvc",
        "kartennummer", "kreditkarte", "karteninhaber", "kartenprüf", "kaartnummer", "kortnummer",
        "kreditkort",
        "numerodecarte", "numerodetarjeta", "numerodocartao", "numerocarta",
        "カード", "クレジット", "セキュリティコード", "有効期限",
        "卡号", "卡號", "信用卡", "银行卡", "銀行卡", "借记卡", "储蓄卡", "安全码", "安全碼", "有效期",
        "카드", "유효기간", "보안코드",
    ),
)
"""Payment fields: card number, security code, expiry, holder, bank account."""

SECRET = Vocabulary(
    words=(
        "password", "pass word", "passwd", "pwd", "pw", "passphrase", "pass phrase", "passcode", "pin",
        "pin code",
        "otp", "one time code", "one time password", "2fa", "mfa", "totp", "security answer",
        "verification code",
        "auth code", "authentication code", "sms code", "mtan", "sms tan",
        "passwort", "kennwort", "geheimzahl", "geheimnummer", "bestätigungscode",
        "mot de passe", "code secret", "code pin", "code de vérification",
        "contraseña", "clave de acceso", "clave secreta", "código de verificación",
        "senha", "código de verificação",
        "wachtwoord", "hasło", "lösenord", "passord", "adgangskode", "salasana", "şifre",
        "mật khẩu", "kata sandi",
        "пароль", "κωδικός", "كلمة المرور", "كلمة السر", "סיסמה", "पासवर्ड", "รหัสผ่าน",
    ),
    parts=(
        "password", "passwort", "passwd", "passcode", "passphrase", "kennwort", "wachtwoord", "contrasena",
        "onetimecode", "onetimepassword",
        "パスワード", "暗証番号", "認証コード", "密码", "密碼", "验证码", "驗證碼", "비밀번호", "인증번호",
    ),
)
"""Secret fields: passwords, PINs, one-time and verification codes."""

PAYMENT_CONTEXT = Vocabulary(
    words=(
        "pay", "payment", "payments", "checkout", "check out", "order", "place order", "purchase", "buy",
        "billing",
        "donate", "donation", "subscribe and pay", "complete purchase",
        "zahlen", "bezahlen", "zahlung", "zahlungspflichtig bestellen", "kasse", "kaufen", "jetzt kaufen",
        "payer", "paiement", "commander", "acheter", "régler",
        "pagar", "pago", "comprar", "finalizar compra",
        "paga", "pagamento", "acquista", "ordina",
        "betalen", "betaling", "afrekenen", "bestellen", "kopen",
        "zapłać", "płatność", "kup", "kupuję",
        "betala", "betaling", "köp",
        "ödeme", "öde", "satın al",
        "оплата", "оплатить", "купить", "заказать",
        "stripe", "braintree", "adyen", "paypal", "klarna", "square", "worldpay", "mollie", "checkout com",
        "cybersource", "authorize net", "paddle", "recurly", "chargebee", "razorpay", "mercadopago",
    ),
    parts=(
        "payment", "checkout", "支払", "購入", "注文", "決済", "支付", "付款", "购买", "購買", "结账", "結帳",
        "결제", "구매", "주문",
    ),
)
"""What makes a form or a frame look like taking a payment (with :data:`PAYMENT`): only the page
script uses it, to refuse a payment form beside a frame of another site (a hosted card field)."""


def said(text: object) -> str | None:
    """Which kind of field ``text`` (a field's name, id, label, ...) says it is, or None."""
    if _CARD_SHAPE.match(str(text or "").strip()):
        return "a payment field"
    normalized = normalize(text)
    if PAYMENT.found_in(normalized):
        return "a payment field"
    if SECRET.found_in(normalized):
        return "a password, PIN or one-time code field"
    return None


def secret_autocomplete(value: str) -> bool:
    """Whether an ``autocomplete`` attribute names a secret or payment field (any of its tokens);
    the page's telemetry (redact.js ``sensitiveField``) and forms (forms.js) read the same lists."""
    tokens = _AUTOCOMPLETE_GAPS.split(value.lower())
    return any(t.startswith(AUTOCOMPLETE_PAYMENT_PREFIX) or t in AUTOCOMPLETE_SECRET for t in tokens)


def card_pattern(pattern: object) -> bool:
    """Whether an input's ``pattern`` asks for a card number's 13 to 19 digits."""
    return isinstance(pattern, str) and bool(_CARD_DIGITS.search(pattern))


def vocabulary_for_js() -> dict[str, object]:
    """What ``protocol.generated.js`` carries for forms.js (``FIELDS``)."""
    return {
        "secretAutocomplete": list(AUTOCOMPLETE_SECRET),
        "autocompleteGaps": AUTOCOMPLETE_GAPS.to_wire(),
        "paymentAutocompletePrefix": AUTOCOMPLETE_PAYMENT_PREFIX,
        "cardShape": CARD_SHAPE,
        "cardDigits": CARD_DIGITS,
        "payment": PAYMENT.to_js(),
        "secret": SECRET.to_js(),
        "paymentContext": PAYMENT_CONTEXT.to_js(),
    }
