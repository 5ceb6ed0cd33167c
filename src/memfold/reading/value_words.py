"""The words values are told in: numbers, ordinals, scales, fractions, months,
weekdays, currency signs, and the words a value can start with (``values``)."""

from __future__ import annotations

UNITS_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
SMALL = {
    **{w: n for n, w in enumerate(UNITS_WORDS.split())},
    **TENS,
    "eighty": 80,
    "ninety": 90,
    "dozen": 12,
    "a": 1,
}
ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
)
ORDINAL_WORDS = {w: n + 1 for n, w in enumerate(ORDINALS.split())}
SCALE = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "k": 1_000,
    "m": 1_000_000,
    "bn": 1_000_000_000,
}
FRACTIONS = {"half": 50.0, "third": 33.3, "quarter": 25.0, "tenth": 10.0, "fifth": 20.0}
MONTHS = {
    m: n + 1
    for n, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        )
    )
    for m in names.split()
}
WEEKDAYS = {
    d: names.split()[0][:3]
    for names in (
        "monday mon mondays",
        "tuesday tue tues tuesdays",
        "wednesday wed wednesdays",
        "thursday thu thur thurs thursdays",
        "friday fri fridays",
        "saturday sat saturdays",
        "sunday sun sundays",
    )
    for d in names.split()
}
# "Dec. 20", "Thu. 4 pm": an abbreviation with its period.
MONTHS.update({f"{m}.": n for m, n in list(MONTHS.items()) if len(m) <= 4})
WEEKDAYS.update({f"{d}.": w for d, w in list(WEEKDAYS.items()) if len(d) <= 4})
CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp"}
# The days of a working week, told in one word ("every weekday" = "Monday to Friday").
WORKWEEK = frozenset(("weekday", "weekdays"))
STARTERS = frozenset(
    (
        *SMALL,
        *SCALE,
        *FRACTIONS,
        *MONTHS,
        *WEEKDAYS,
        *WORKWEEK,
        *ORDINAL_WORDS,
        *CURRENCY_SIGNS,
        "an",
        "one",
        "noon",
        "midday",
        "midnight",
        "other",
        "once",
        "twice",
        "thrice",
        "second",
        "fortnightly",
        "biweekly",
        "bi-weekly",
    )
)
