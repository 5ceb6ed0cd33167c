"""The supersede evidence, the word swaps and the pair relation on the parse (texts
written for these tests)."""

from __future__ import annotations

import pytest

from memfold.reading.cues import change_cues
from memfold.reading.difference import supersede_conflicts
from memfold.reading.facts import facts
from memfold.reading.moved_value import moved_value
from memfold.reading.relation import Limits, Relation, relate
from memfold.reading.restatement import restatement_differences, substitutions
from memfold.reading.supersede import supersede_evidence

STRICT = Limits(max_additions=2, swap_max=2, min_overlap=0.5, max_reworded=2)
LOOSE = Limits(max_additions=2, swap_max=2, min_overlap=0.5)


@pytest.mark.parametrize(
    ("text", "cues"),
    [
        ("Omar now works at Stripe.", {"now"}),
        ("The landlord raised the rent to $1,500.", {"raise"}),
        ("The report raises hard questions about the budget.", set()),  # no value follows
        ("Lena is on sick leave this week.", set()),  # a noun
        ("There are still eleven payments left on the loan.", set()),  # a participle
        ("The fee is lower than last year.", set()),  # a comparative
        ("Bo no longer eats meat.", {"no longer"}),
        ("Maya's return flight leaves Heathrow at 9:10am Monday.", set()),  # a timetable
        ("The class starts at 9 am.", set()),
        ("The standup moved to 10 am.", {"move"}),  # a change, in the past
        ("Sam left the band last week.", {"leave"}),
    ],
)
def test_change_cues_are_read_as_the_parse_uses_them(text: str, cues: set[str]) -> None:
    assert change_cues(facts(text)) == cues


def test_a_change_cue_about_the_same_statement_is_evidence() -> None:
    found = supersede_evidence("Sam lives in Lyon.", "Sam moved to Berlin.", 0.5, 2)
    assert found.found and "move" in found.reason
    other = supersede_evidence("Sam likes tea.", "Sam now lives in Berlin.", 0.5, 2)
    assert not other.found and "something else" in other.reason
    budget = ("The launch budget is $30,000.", "The launch budget was revised to $40,000.")
    assert supersede_evidence(*budget, 0.5, 2).found


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # The shared words stand in a clause under the cue's, not in what it says changed.
        (
            "Wen will share some job descriptions with Joshua.",
            "Wen started using Jobscan to compare the resume against five job descriptions.",
        ),
        (
            "Dara feels overwhelmed.",
            "Now Dara asks how to cut the essay without overwhelming readers.",
        ),
        ("Pia plans the menu.", "Pia now rests on Sundays, after she plans the menu with Leo."),
        # a life event names what it ends; a place both share is no statement
        ("Ana lives in Lisbon.", "Ana got married in Lisbon."),
    ],
)
def test_a_cue_speaks_of_its_own_clause_only(older: str, newer: str) -> None:
    found = supersede_evidence(older, newer, 0.5, 2)
    assert not found.found and not found.retraction


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ravi drives to work.", "Ravi started cycling to work."),
        (
            "Freya prefers meetings in the afternoon.",
            "Freya now prefers to hold meetings in the morning.",
        ),
        ("Yusuf eats meat.", "Yusuf no longer eats meat."),
        # the thing whose value a copula tells, told again with a new one
        ("The user's login shell is fish.", "The user changed their login shell to zsh."),
        ("Lena drives a 2015 Honda Civic.", "Lena replaced her Civic with a Skoda Enyaq."),
        # a life event ends the state before it
        ("Olu is engaged to Kemi.", "Olu and Kemi got married on Saturday."),
        ("Grace is dating Owen.", "Grace and Owen broke up in April."),
    ],
)
def test_a_cue_over_the_older_statement_is_evidence(older: str, newer: str) -> None:
    assert supersede_evidence(older, newer, 0.5, 2).found


def test_a_change_to_what_someones_thing_owns_is_no_new_value_of_it() -> None:
    older, newer = "The user's login shell is fish.", "The user changed their login shell's theme."
    assert not supersede_evidence(older, newer, 0.5, 2).found


@pytest.mark.parametrize(
    "plan",
    [
        "Tariq may move to Porto.",
        "Tariq will move to Porto next year.",
        "Tariq is going to move to Porto in the autumn.",
        "Tariq wants to move to Porto.",
        "Tariq is probably moving to Porto.",
    ],
)
def test_a_plan_or_a_guess_leaves_a_fact_standing(plan: str) -> None:
    assert not supersede_evidence("Tariq lives in Braga.", plan, 0.5, 2).found
    assert not change_cues(facts(plan))


def test_a_plan_may_change_a_plan() -> None:
    newer = "Ines asked to get the weekly report on Fridays instead."
    older = "Ines wants to get the weekly report on Mondays."
    assert supersede_evidence(older, newer, 0.5, 2).found
    # The same wish does not retire a fact: its cue is not said to have happened.
    assert not change_cues(facts(newer))


def test_a_later_date_counts_only_beside_another_changed_value() -> None:
    older, newer = (
        "As of Q4 2023, the team has 12 agents.",
        "As of Q2 2024, the team has 15 agents.",
    )
    assert supersede_evidence(older, newer, 0.5, 2).found
    retreat = supersede_evidence(
        "The 2024 retreat is in Lisbon.", "The 2025 retreat is in Lisbon.", 0.5, 2
    )
    assert not retreat.found


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Tariq's credit score is 690.", "Tariq's latest credit score is 724."),
        ("The cluster runs Kubernetes 1.27.", "As of Q2 2025, the cluster runs Kubernetes 1.30."),
        (
            "Liam's shipping address is 14 Elm Street.",
            "Liam's latest shipping address is 88 Harbor Road.",
        ),
    ],
)
def test_a_value_dated_to_the_latest_time_known_is_a_later_one(older: str, newer: str) -> None:
    evidence = supersede_evidence(older, newer, 0.5, 2)
    assert evidence.found and "a later time" in evidence.reason


def test_a_latest_value_of_another_thing_or_the_same_value_is_no_change() -> None:
    same = supersede_evidence(
        "Tariq's credit score is 690.", "Tariq's latest score is 690.", 0.5, 2
    )
    assert not same.found
    assert supersede_conflicts(
        "Tariq's credit score is 690.", "Tariq's wife's latest credit score is 724."
    )
    # the older tells a time of its own: which is later is not known
    dated = supersede_evidence(
        "Toronto yesterday had 64 probable cases.",
        "As of Wednesday, Toronto had 65 probable cases.",
        0.5,
        2,
    )
    assert "later time" not in dated.reason
    # "latest" of another thing dates nothing the older says
    other = supersede_evidence(
        "The Nasdaq fell 2.9 percent.",
        "The Nasdaq fell 2.86 percent, based on the latest data.",
        0.5,
        2,
    )
    assert "later time" not in other.reason


def test_a_negation_told_by_an_antonym_is_no_contradiction() -> None:
    same = supersede_evidence(
        "Ama does not like crowded trains.", "Ama dislikes crowded trains.", 0.5, 2
    )
    assert not same.found and not same.contradiction
    flip = supersede_evidence(
        "Ama does not like crowded trains.", "Ama likes crowded trains.", 0.5, 2
    )
    assert flip.contradiction


def test_a_negation_without_a_cue_is_a_contradiction_and_with_one_a_retraction() -> None:
    flat = supersede_evidence("Carmen is vegan.", "Carmen is not vegan.", 0.5, 2)
    assert not flat.found and flat.contradiction
    cued = supersede_evidence("Carmen is vegan.", "Carmen is no longer vegan.", 0.5, 2)
    assert cued.found and cued.retraction


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Fatima uses Neovim on her work laptop.", "Fatima uses Neovim on her personal laptop."),
        (
            "Sipho studied at the University of Cape Town.",
            "Sipho taught at the University of Cape Town.",
        ),
        ("The user is allergic to peanuts.", "The user is allergic to shellfish."),
    ],
)
def test_a_word_told_in_place_of_another_is_a_swap(older: str, newer: str) -> None:
    assert substitutions(older, newer, 2)
    assert restatement_differences(older, newer, 2, 2)


@pytest.mark.parametrize(
    ("older", "newer", "why"),
    [
        (
            "The free tier allows unlimited API calls.",
            "The free tier is capped at 1,000 API calls.",
            "value",
        ),
        ("Anneke moved out of the flat in 2020.", "Anneke moved into the flat in 2020.", "role"),
        (
            "Sarah reviews the pull requests for billing.",
            "The pull requests for billing are reviewed by Ahmed.",
            "person",
        ),
        # What the older says its subject is, in none of the newer's words.
        (
            "The visitor lot behind the clinic is free on weekends.",
            "On weekends you have to pay to use the visitor lot behind the clinic.",
            "state",
        ),
    ],
)
def test_what_is_no_restatement(older: str, newer: str, why: str) -> None:
    found = restatement_differences(older, newer, 2, 2)
    assert found and any(d.kind == why for d in found), found


@pytest.mark.parametrize(
    ("older", "newer", "relation"),
    [
        ("The user likes coffee.", "the user likes coffee", Relation.SAME),
        ("Sam prefers Rust for systems work.", "Sam likes Rust for systems work.", Relation.SAME),
        ("The user likes coffee.", "The user likes coffee with oat milk.", Relation.SAYS_MORE),
        ("The user likes coffee with oat milk.", "The user likes coffee.", Relation.SAYS_LESS),
        (
            "The queue timeout is set to 30 seconds.",
            "The queue timeout was raised to 90 seconds.",
            Relation.CHANGED,
        ),
        ("The user likes coffee.", "The user doesn't like coffee.", Relation.CONTRADICTS),
        ("The user likes coffee.", "The user plays tennis on weekends.", Relation.OTHER),
        ("The user has a cat.", "Does the user have a cat?", Relation.OTHER),
        # an article or "one" counts one: another count is neither more nor less
        ("Merges need two approvals.", "Merges need only one approval.", Relation.OTHER),
        ("The user has a cat.", "The user has two cats.", Relation.OTHER),
        ("The team has one designer.", "The team now has two designers.", Relation.CHANGED),
    ],
)
def test_how_a_newer_text_stands_to_an_older(older: str, newer: str, relation: Relation) -> None:
    assert relate(older, newer, STRICT).relation is relation


def test_the_strict_reading_supersedes_on_the_guards_evidence() -> None:
    # The offline judge proposes a supersede wherever the guards would accept one: a cue
    # about the older's statement, not only a value told anew in the same words.
    older, newer = (
        "Ifeoma works at Microsoft as a program manager.",
        ("Ifeoma left Microsoft and joined Atlassian as a product manager."),
    )
    assert relate(older, newer, LOOSE).relation is Relation.CHANGED
    assert relate(older, newer, STRICT).relation is Relation.CHANGED
    # A name told in place of another under a cue; a number of the same thing.
    boss = "The user's manager is Greg Holloway."
    assert relate(boss, "The user now reports to Patricia Nwosu.", STRICT).relation is (
        Relation.CHANGED
    )
    cat = "The user has one cat named Pepper."
    adopted = "The user now has two cats after adopting a kitten named Salt."
    assert relate(cat, adopted, STRICT).relation is Relation.CHANGED
    # Where the guards find no evidence, neither reading supersedes.
    plain = "Ifeoma works at Atlassian as a product manager."
    assert relate(older, plain, STRICT).relation is not Relation.CHANGED


def test_the_strict_reading_leaves_a_cue_beside_details_told_apart() -> None:
    # The guards accept it ("now" about the same statement); the offline judge, which
    # sees nothing of the older's replaced (a price dropped, resellers added), leaves it.
    older = "Solomon 5.5 is available in the United States and Canada for about $12,700."
    newer = "Solomon 5.5 is now available in the U.S. and Canada through resellers."
    assert supersede_evidence(older, newer, 0.5, 2).found
    assert relate(older, newer, LOOSE).relation is Relation.CHANGED
    assert relate(older, newer, STRICT).relation is not Relation.CHANGED


def test_a_cue_in_a_clause_about_another_subject_is_no_evidence() -> None:
    older = "The state's congressional delegation is made up of 17 Democrats and 15 Republicans."
    newer = (
        "Although Republicans now hold every statewide office, the state's congressional "
        "delegation comprises 17 Democrats and 15 Republicans."
    )
    evidence = supersede_evidence(older, newer, 0.5, 2)
    assert not evidence.found and "another subject" in evidence.reason
    # The clause that names the older's subject, or a pronoun for it, still speaks of it.
    moved = "Nasrin lives in Tehran with her parents."
    assert supersede_evidence(moved, "She left Tehran and now lives in Toronto.", 0.5, 2).found
    manager = "The user's manager is Greg Holloway."
    assert supersede_evidence(manager, "Patricia Nwosu is now the user's manager.", 0.5, 2).found


def test_an_adjective_cue_replaces_only_a_known_thing() -> None:
    # "the new X" / "her new X" is the X the older names, told anew; "a new X" is another.
    assert change_cues(facts("Her new address is 5 Elm Street.")) == {"new"}
    assert change_cues(facts("The new deadline is May 3.")) == {"new"}
    assert change_cues(facts("Ana bought a new bike in Lisbon.")) == set()


def test_the_start_of_the_state_the_older_states_is_no_change() -> None:
    works = "Ana works at Stripe."
    assert not supersede_evidence(works, "Ana started working at Stripe in May.", 0.5, 2).found
    # Starting something else is.
    assert supersede_evidence("Ravi drives to work.", "Ravi started cycling to work.", 0.5, 2).found


def test_a_period_word_is_the_period_it_names() -> None:
    # "monthly" and "every month" tell one period; "monthly" and "annually" two.
    paid = "The user's Disney+ subscription is paid annually."
    assert relate(paid, "The user pays for Disney+ monthly.", LOOSE).relation is Relation.OTHER
    same = relate("The user pays rent every month.", "The user pays rent monthly.", LOOSE)
    assert same.relation is Relation.SAME
    assert "month" in facts("The user pays rent monthly.").content


def test_a_thing_one_verb_takes_replaced_by_other_words_is_a_swap() -> None:
    # However the parse hangs the new words ("release" read as a verb).
    older = "The payments repo requires two approvals before merging to main."
    newer = "The payments repo requires two approvals before merging to release branches."
    assert restatement_differences(older, newer, 2, 2)
    spent = "The user spends about 300 euros a month on groceries."
    assert substitutions(spent, spent.replace("groceries", "eating out"), 2)
    # A detail added keeps the older's thing: no swap.
    assert not substitutions("Ana bikes to work.", "Ana bikes to work every day.", 2)


def test_a_verb_told_as_a_noun_is_the_judges_to_read() -> None:
    earns = ("The user earns $85k a year.", "The user's annual salary is $85,000.")
    assert not substitutions(*earns, 2)
    # One verb for another, or a state for another, stays a swap.
    assert substitutions("Sipho studied at UCT.", "Sipho taught at UCT.", 2)
    assert substitutions("Maya is left-handed.", "Maya is right-handed.", 2)
    assert substitutions("Aylin enjoys public speaking.", "Aylin dislikes public speaking.", 2)


def test_what_the_older_says_ended_is_history() -> None:
    # "used to" ends the older's fact: a current one neither restates nor supersedes it.
    past, now = "The user used to live in Lisbon.", "The user currently lives in Porto."
    assert relate(past, now, LOOSE).relation is Relation.OTHER
    assert relate(past, "The user lives in Lisbon.", LOOSE).relation is Relation.OTHER
    # A newer that says the older's fact ended is a retraction, as before.
    ended = relate("The user lives in Lisbon.", "The user used to live in Lisbon.", LOOSE)
    assert ended.relation is Relation.CHANGED


@pytest.mark.parametrize(
    ("older", "newer", "moved"),
    [
        (
            "I'm building the portfolio page with 8 cards and a contact form.",
            "Since I added two projects, I now have a total of 10 cards on the page.",
            "'8 card' -> '10 card'",
        ),
        (
            "I set a deadline of June 3 for the first draft of the grant report.",
            "I now have a new grant report deadline of June 10.",
            "'06-03' -> '06-10'",
        ),
        (
            "The mobile app has a release date of May 4, pending the audit.",
            "The mobile app now has a new release date of May 6.",
            "'05-04' -> '05-06'",
        ),
        # The value is the time of the clause's subject, a thing both texts name.
        (
            "The nightly backup is at 1:30.",
            "Backup moved to 3:00 from next week.",
            "'01:30' -> '03:00'",
        ),
    ],
)
def test_a_value_told_anew_under_a_cue_is_a_change(older: str, newer: str, moved: str) -> None:
    assert moved_value(older, newer) == moved
    evidence = supersede_evidence(older, newer, 0.5, 2)
    assert evidence.found and evidence.value
    reading = relate(older, newer, STRICT)
    assert reading.relation is Relation.CHANGED and reading.value_only


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a goal is not what is so
        ("The user's weight goal is 75 kg.", "The user currently weighs 82 kg."),
        ("The user wants to weigh 70 kg by June.", "The user now weighs 74 kg."),
        # no cue: two counts side by side
        ("The gallery has 8 cards.", "The gallery has 10 cards and a footer."),
        # another counted thing
        ("The gallery has 8 cards.", "The gallery now has 10 photos."),
        # the older already says the new value
        ("The team grew from 8 to 10 people.", "The team now has 10 people."),
        # a year is when, not what changed
        ("Ines moved to Leeds in 2019.", "Ines now lives in York since 2021."),
        # a date or an amount alone says nothing of what it is of
        ("I met Michael at the festival on Jan 15.", "The book launch was moved to Nov 22."),
        ("I've budgeted $3,000 for the move.", "Insurance is now $1,200 a month."),
        # an amount the older changed by, and the old side of the newer's change
        ("I cut 1,200 words from my draft.", "My final draft now has 35,000 words."),
        ("Images must stay under 200 KB.", "I now reduced the images from 300 KB to 180 KB."),
        # an amount changed by, told by the newer; a value of "it"
        ("The screenplay draft has 5,000 words.", "I now cut 1,200 words from the draft."),
        ("I logged 3,600 words this week.", "It was now adjusted to 1,350 words."),
        # a cue of a clause of its own
        (
            "The gallery has 8 cards.",
            "The gallery has 10 cards, and now I'm moving on to the footer.",
        ),
    ],
)
def test_what_is_no_value_told_anew(older: str, newer: str) -> None:
    assert moved_value(older, newer) == ""


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # Each dated on another day, neither moved: two events.
        (
            "Ines is dining with Marta at the Harbour Inn on May 22.",
            "Ines thanked Marta, who joined her for the July 10 retreat to celebrate her new job.",
        ),
        # A goal in one, what is so in the other.
        ("Kofi is aiming for a 10% raise.", "Kofi recently got a new title with a 12% raise."),
        (
            "Mina is trying to reach 100% test coverage on the parser.",
            "Mina is trying to raise the parser's coverage, which recently improved to 78%.",
        ),
    ],
)
def test_a_cue_does_not_join_two_events_or_a_goal_and_an_actual(older: str, newer: str) -> None:
    assert not supersede_evidence(older, newer, 0.5, 2).found


def test_a_plan_one_pays_for_is_no_goal() -> None:
    older = "Thabo's home internet plan is 100 Mbps fiber."
    assert supersede_evidence(older, "Thabo upgraded his home fiber to 1 Gbps.", 0.5, 2).found
    planned = "The user plans to cut spending to $500 a month."
    assert not supersede_evidence(planned, "The user now spends $700 a month.", 0.5, 2).found


def test_a_day_something_moved_to_is_a_change() -> None:
    older = "Teo's dentist appointment is on March 3."
    assert supersede_evidence(
        older, "Teo's dentist appointment was moved to March 10.", 0.5, 2
    ).found


def test_a_thing_aimed_at_is_not_the_thing_done() -> None:
    older = "Omar upgraded the build server to Node 18."
    newer = "Omar is trying to upgrade the build server to Node 18."
    assert any(d.kind == "certainty" for d in restatement_differences(older, newer, 2, 2))
    assert any(d.kind == "certainty" for d in restatement_differences(newer, older, 2, 2))


def test_a_verb_the_parse_read_as_a_noun_is_still_a_swap() -> None:
    # spaCy reads "Lena studies Spanish" as a noun phrase with no verb.
    older = "Lena teaches Spanish at the community college on Tuesdays."
    newer = "Lena studies Spanish at the community college on Tuesdays."
    assert substitutions(older, newer, 2)


def test_a_persons_time_told_anew_is_no_value_of_the_same_thing() -> None:
    # What a person does at 6:30 may be another thing at 7:00.
    assert moved_value("The user runs at 6:30.", "The user now swims at 7:00.") == ""
    assert moved_value("Ana is at the gym at 6:30.", "Ana now starts work at 7:00.") == ""


def test_am_or_pm_is_part_of_the_time_not_a_thing_both_times_are_of() -> None:
    # Two schedules, each with a clock time: "PM" is no noun the two share.
    older = "I've set aside 7-9 PM on weekdays for writing sessions."
    newer = "My meeting with Greg was rescheduled from 3 PM to 5 PM."
    assert moved_value(older, newer) == ""
    # A thing a sentence opens with is the thing whose time moved, capital or not.
    older = "Dinner with Ana is at 7 pm on Friday."
    newer = "Dinner with Ana was pushed back to 8 pm."
    assert moved_value(older, newer) == "'19:00' -> '20:00'"


def test_a_new_name_where_the_older_had_one_is_a_change_told_anew() -> None:
    # "lives in Porto" / "left Porto and now lives in Lyon": the place after "lives in"
    # is told anew, though the older's name is still said.
    older = "Joana lives in Porto with her sister."
    newer = "Joana left Porto and now lives in Lyon."
    assert relate(older, newer, STRICT).relation is Relation.CHANGED
    # A new name in another place is a detail beside the older's, not a change.
    shop = "Solomon 5.5 is sold in Canada for about $12,700."
    resold = "Solomon 5.5 is now sold in Canada through Ingram."
    assert relate(shop, resold, STRICT).relation is not Relation.CHANGED


def test_a_light_verbs_argument_told_in_place_of_another_is_a_swap() -> None:
    # "takes" says nothing of its own, but what it takes with or on is the fact.
    older = "Daniyar takes his vitamins with breakfast."
    newer = "Daniyar takes his vitamins on an empty stomach."
    assert restatement_differences(older, newer, 2, 2)


def test_a_switch_from_the_older_thing_to_another_tells_it_anew() -> None:
    # "main" and "primary" are one word (a synonym or not): the value told anew is the
    # thing the newer says it came from.
    older = "The user's primary email client is Thunderbird."
    newer = "The user switched from Thunderbird to Apple Mail as their main email client."
    assert relate(older, newer, STRICT).relation is Relation.CHANGED
    # Nor is it a restatement that adds a detail.
    assert restatement_differences(older, newer, 2, 2)


def test_a_switch_from_the_older_things_to_another_is_evidence() -> None:
    # The older's thing is what the change left: however few words the two share.
    older = "The user's team uses Jira for issue tracking."
    newer = "The user's team has since migrated from Jira to Linear."
    assert supersede_conflicts(older, newer) == []
    found = supersede_evidence(older, newer, 0.5, 2)
    assert found.found and "left jira" in found.reason
    # "goes to the NAS" / "from the NAS to B2": the move is the change, not a direction
    # told two ways.
    nas = "The user's backups go to a Synology NAS."
    switched = "The user switched their backups from the Synology NAS to Backblaze B2."
    assert supersede_conflicts(nas, switched) == []
    assert supersede_evidence(nas, switched, 0.5, 2).found
    # Without a cue it is no change ("flew from Lyon to Porto").
    assert not supersede_evidence(
        "Ana lives in Lyon.", "Ana flew from Lyon to Porto for a conference.", 0.5, 2
    ).found


def test_a_relative_of_the_older_person_is_another_subject() -> None:
    older = "Ana works at Google."
    assert supersede_conflicts(older, "Ana's sister switched from Google to Meta.")
    assert supersede_conflicts(older, "Ana's sister moved to Meta.")
    assert supersede_conflicts(older, "Ana now works at Meta.") == []
    # A thing of the person's is still about the person.
    assert supersede_conflicts("The user pays $1,800 rent.", "The user's rent is now $1,950.") == []


def test_turning_an_age_is_a_change() -> None:
    older = "Noor's son is 8 years old."
    assert supersede_evidence(older, "Noor's son turned 9 in April.", 0.5, 2).found
    # Without the verb, another age alone is no change.
    assert not supersede_evidence(older, "Noor's son was 9 in April.", 0.5, 2).found


def test_a_later_date_beside_a_word_told_anew_is_evidence() -> None:
    older = "In 2022, Thandiwe's job title was junior analyst."
    found = supersede_evidence(older, "In 2024, Thandiwe's job title is senior analyst.", 0.5, 2)
    assert found.found and "later date" in found.reason
    # Without a word or value told anew, a later date alone names another thing.
    assert not supersede_evidence(
        older, "In 2024, Thandiwe's job title is junior analyst.", 0.5, 2
    ).found


@pytest.mark.parametrize(
    ("older", "newer", "found"),
    [
        ("Lena drives a 2015 Honda Civic.", "Lena sold the Civic and bought a RAV4.", True),
        ("Nikolai's gym is Planet Fitness.", "Nikolai cancelled Planet Fitness last week.", True),
        (
            "The user's flight to Lima leaves at 9 am.",
            "The user's flight to Lima was cancelled.",
            True,
        ),
        # what was sold or cancelled is another thing
        ("Lena drives a 2015 Honda Civic.", "Lena sold her bike and bought a RAV4.", False),
        (
            "The user has a Netflix subscription.",
            "The user cancelled the Spotify subscription.",
            False,
        ),
    ],
)
def test_selling_or_cancelling_ends_only_what_it_takes(older: str, newer: str, found: bool) -> None:
    assert supersede_evidence(older, newer, 0.5, 2).found is found


def test_a_clause_that_tells_when_states_no_change() -> None:
    assert "sell" in change_cues(facts("Ana sold the house in May."))
    assert "sell" not in change_cues(facts("Ana paid off the loan before the house was sold."))
    assert "move" not in change_cues(facts("Ana learned Portuguese after she moved to Porto."))
