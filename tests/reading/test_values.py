"""Values read in one spelling, each number bound to what it counts."""

from __future__ import annotations

import pytest

from memfold.reading.difference import same_fact
from memfold.reading.facts import facts
from memfold.reading.parser import read
from memfold.reading.relation import Limits, Relation, relate
from memfold.reading.restatement import restatement_differences
from memfold.reading.values import values


def idents(text: str) -> list[tuple[str, str, str]]:
    found, _ = values(read(text))
    return [v.ident for v in found]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Meet at 7pm on Sept 21.", "Meet at 19:00 on 21 September."),
        ("About a tenth of users churn.", "10 % of users churn."),
        ("The round raised $2.4 million.", "The round raised 2,400,000 dollars."),
        ("She runs three kilometres a day.", "She runs 3 km a day."),
        ("The call is at noon.", "The call is at 12 pm."),
        ("The fund closed up 0.4pc.", "The fund closed up 0.4 percent."),
        ("The laptop has 32gb of memory.", "The laptop has 32 GB of memory."),
        ("Standup is at half past nine in the morning.", "Standup is at 9:30 am."),
        ("The ferry leaves at a quarter to six.", "The ferry leaves at 5:45."),
        ("Rent is two thousand one hundred fifty dollars.", "Rent is $2,150."),
        ("Ravi owes one hundred and fifty euros.", "Ravi owes €150."),
        ("The freeze starts on Dec. 20.", "The freeze starts on December 20."),
        ("The wedding is on 9/20/2025.", "The wedding is on September 20, 2025."),
        ("The wedding is on 20/9/2025.", "The wedding is on 20 September 2025."),
        ("Vikram has lived in Lyon for a decade.", "Vikram has lived in Lyon for ten years."),
        ("The user lives on the 12th floor.", "The user lives on floor twelve."),
        ("Ana visits Porto every other week.", "Ana visits Porto every two weeks."),
        ("The commute takes three quarters of an hour.", "The commute takes 45 minutes."),
        ("The call takes a quarter of an hour.", "The call takes 15 minutes."),
        ("The flight takes an hour and a half.", "The flight takes 90 minutes."),
        ("Sprints are a fortnight long.", "Sprints last two weeks."),
        (
            "The user has studied Japanese for 24 months.",
            "The user has studied Japanese for two years.",
        ),
        ("The gateway times out after 30,000 ms.", "The gateway times out after 30 seconds."),
        ("The user took half a day off.", "The user took 0.5 days off."),
        ('Ines works on a 14" MacBook Pro.', "Ines works on a 14-inch MacBook Pro."),
        ("The Atlas database is Postgres 15.", "The Atlas database is PostgreSQL 15."),
        ("Zendesk ticket 9923 is escalated.", "Zendesk ticket #9923 is escalated."),
        (
            "The renewal closes at the end of Q3.",
            "The renewal closes at the end of the third quarter.",
        ),
        (
            "Nate pays rent on the 1st of every month.",
            "Nate pays rent on the first of every month.",
        ),
        ("The call is on Monday at 11 a.m. Eastern.", "The call is on Monday at 11:00 ET."),
        ("The request timeout is set to 30 s.", "The request timeout is set to 30 seconds."),
        ("The gateway allows 100 requests per minute.", "The gateway allows 100 req per minute."),
        ("The customer was charged twice.", "The customer was charged two times."),
        ("Priya orders a dozen eggs every week.", "Priya orders 12 eggs every week."),
        ("Ticket 9923 is escalated to tier 2 support.", "Ticket 9923 went to tier-2 support."),
        ("The team is on tier-2.", "The team is on tier 2."),
        ("The deploy window is 2-4 pm on Fridays.", "The window is from 2 pm to 4 pm on Fridays."),
        ("Office hours are 11-1 pm.", "Office hours are 11 am to 1 pm."),
        ("Planning is every other Monday.", "Planning is fortnightly on Mondays."),
        ("Payday is every second Friday.", "Payday is biweekly on Fridays."),
        ("Payday is biweekly.", "Payday is every two weeks."),
    ],
)
def test_two_spellings_of_one_value_read_the_same(a: str, b: str) -> None:
    assert idents(a) == idents(b)


def test_a_number_is_bound_to_what_it_counts() -> None:
    assert idents("The flight leaves at 9 am from gate 12.") == [
        ("time", "09:00", ""),
        ("ordinal", "12", "gate"),
    ]
    assert idents("The flight leaves at 12 am from gate 9.") == [
        ("time", "00:00", ""),
        ("ordinal", "9", "gate"),
    ]


def test_a_number_after_its_noun_labels_it_and_one_before_counts() -> None:
    assert idents("The office is on the third floor.") == [("ordinal", "3", "floor")]
    assert idents("The office building has 3 floors.") == [("number", "3", "floor")]


def test_a_number_sign_marks_a_label_whatever_follows() -> None:
    # A dash after the number is no unit of it: no 3108 refunds.
    assert idents("Ticket #3108 - refund approved.") == idents("Ticket 3108: refund approved.")
    assert idents("Order #5512 - 3 chairs shipped.") != idents("Order #5512 - 4 chairs shipped.")


def test_years_dates_and_weekdays_have_their_own_kinds() -> None:
    kinds = {kind for kind, _, _ in idents("Ana broke her wrist on 3 May 2018, a Friday.")}
    assert {"date", "year", "weekday"} <= kinds


@pytest.mark.parametrize(
    "text",
    [
        "Meet at 8² pm.",
        "The room is 8² m² at 8² o'clock.",
        "Rent: ٣ dollars",
        "The user ate three",  # a text that ends where a duration could start
        "The user ate a quarter",
        "It takes an hour and a",
    ],
)
def test_digits_of_other_kinds_do_not_break_the_values(text: str) -> None:
    idents(text)  # superscripts are digits to str.isdigit but not numbers to int()


def test_a_lone_surrogate_does_not_break_the_parse() -> None:
    # a judge's broken text is refused by the result check; reading it must not raise
    assert read("Sam likes tea \ud800 a lot").words


def test_once_counts_only_after_its_verb_and_zones_stay_apart() -> None:
    assert idents("The customer was charged once.") == [("number", "1", "time")]
    assert idents("Mia once lived in Oslo.") == []  # formerly, not a count
    assert idents("Once the build passes, Omar deploys.") == []
    assert idents("The call is at 10 am PT.") != idents("The call is at 10 am ET.")
    assert idents("The sprint review happens on the 1st.") != idents("It is on the 2nd.")


def test_numbers_told_apart_stay_apart() -> None:
    assert idents("Ana has twenty five cats.") == [("number", "25", "cat")]
    assert [k for k, _, _ in idents("Omar ran 5 20 times.")] == ["number", "number"]
    assert idents("The review is on 3/4.") == []  # March 4 or 3 April: not read


STRICT = Limits(max_additions=2, swap_max=2, min_overlap=0.5, max_reworded=2)


def test_a_web_address_is_a_value() -> None:
    (found,) = facts("The status page is https://status.acme.io/.").values
    assert (found.kind, found.key) == ("url", "https://status.acme.io")
    older = "The billing webhook points to https://hooks.acme.io/v1."
    assert [
        d.kind for d in same_fact(older, "The billing webhook points to https://hooks.acme.io/v2.")
    ] == ["url"]
    # A new address under a change cue is the same slot told anew.
    changed = relate(older, "The billing webhook was changed to https://hooks.acme.io/v2.", STRICT)
    assert changed.relation is Relation.CHANGED and changed.value_only


def test_a_duration_in_hours_is_told_in_minutes() -> None:
    # "an hour" = "60 minutes", "half an hour" = "30 minutes", "1.5 hours" = "90 minutes".
    assert [v.show() for v in facts("Femi swims for an hour on Sundays.").values] == [
        "60 minute",
        "sun",
    ]
    half = facts("Femi stretches for half an hour after work.").values
    assert [v.show() for v in half] == ["30 minute"]
    assert [v.show() for v in facts("The drive takes 1.5 hours.").values] == ["90 minute"]
    # A rate is no duration: "twice an hour" is how often, "$30 an hour" an amount.
    assert [v.show() for v in facts("The sensor reports twice an hour.").values] == ["2 time"]
    assert [v.kind for v in facts("Femi charges $30 an hour.").values] == ["money"]
    # Told in minutes, it is the same value; another number of minutes is not.
    older = "Femi swims for an hour on Sundays."
    assert restatement_differences(older, "On Sundays Femi swims for 60 minutes.", 2, 2) == []
    assert restatement_differences(older, "On Sundays Femi swims for 45 minutes.", 2, 2)


def test_a_unit_is_told_in_its_quantitys_base_unit() -> None:
    # One scale per quantity (data/conversions.txt): seconds and hours in minutes,
    # centimetres in metres, milligrams in grams, weeks in days.
    cache = "The user's Redis cache keeps entries for 15 minutes."
    assert (
        restatement_differences(
            cache, "The user's Redis cache keeps entries for 900 seconds.", 2, 2
        )
        == []
    )
    assert restatement_differences(
        cache, "The user's Redis cache keeps entries for 90 seconds.", 2, 2
    )
    assert [v.show() for v in facts("Emeka stands 185 cm tall.").values] == ["1.85 m"]
    assert [v.show() for v in facts("Emeka is 1.85 metres tall.").values] == ["1.85 m"]
    assert [v.show() for v in facts("The user takes 50 mg of sertraline.").values] == ["0.05 g"]
    assert [v.show() for v in facts("The sprint lasts two weeks.").values] == ["14 day"]
    # Inexact factors stay apart: "5 km" is no "3.1 miles".
    assert (
        facts("Priya runs 5 km.").values[0].ident != facts("Priya runs 3.1 miles.").values[0].ident
    )


def test_how_often_a_currency_code_and_a_round_number_are_values() -> None:
    def shown(text: str) -> list[str]:
        return [v.show() for v in facts(text).values]

    assert shown("Eero uses the sauna thrice weekly.") == shown(
        "Eero goes to the sauna three times a week."
    )
    assert shown("The user checks email once a day.") == ["1 time"]
    assert shown("Ana takes her pills twice a day.") == ["2 time"]  # no label of "pills"
    assert shown("Ana once lived in Porto.") == []  # "once": formerly, not how often
    assert shown("User pays EUR 1200 rent.") == ["eur 1200"] == shown("User pays €1,200 rent.")
    assert "eur" not in facts("User pays EUR 1200 rent.").names
    assert shown("The API allows a hundred requests a minute.")[0] == "100 request"
    assert shown("The user lives in a two-bedroom flat.") == shown(
        "The user lives in a 2-bed flat."
    )
    # "a" counts one unit of time, but not in a rate or a kind of thing.
    assert shown("The user is away for a week.") == ["7 day"]
    assert shown("The user pays $30 a month.") == ["usd 30"]
    assert shown("The user drinks 3 coffees a day.") == ["3 coffe"]
    assert shown("The user is a day trader.") == []


def test_an_age_is_one_value_however_told() -> None:
    # "7 years old" says what "is seven" says; "a three-year-old" counts years too.
    assert same_fact("Marisol's son Diego is 7 years old.", "Marisol's son Diego is seven.") == []
    assert [v.show() for v in facts("Biscuit is a three-year-old retriever.").values] == ["3 year"]
    # An age stays in years; a duration in years is told in months ("two years").
    assert [v.show() for v in facts("Biscuit is 3 years old.").values] == ["3 year"]
    assert [v.show() for v in facts("Biscuit has lived here for 3 years.").values] == ["36 month"]
    assert same_fact("Diego is 7 years old.", "Diego is 8 years old.")


def test_a_quoted_number_is_no_inch() -> None:
    assert idents('The song is called "22".') == [("number", "22", "")]


def test_a_number_joined_to_a_name_or_padded_stays_whole_and_a_range_needs_a_clock() -> None:
    assert same_fact("The user had COVID-19 in 2021.", "The user had COVID-20 in 2021.")
    assert same_fact("Nginx runs on web-01.", "Nginx runs on web-02.")
    assert idents("Ticket 12 is in tier-2 support.") != idents("Ticket 12 is in tier-3 support.")
    # a range of two amounts is no time of day
    assert {v.kind for v in facts("It costs 2-4 dollars.").values} == {"number", "money"}
