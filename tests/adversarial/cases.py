"""Texts an LLM judge writes, false and honest, for each of memfold's five text-writing
paths. Data only: ``test_written_texts`` sends each one down its path through the
scripted OpenAI-compatible server and checks whether memfold applies it.

A false text is what a careless or adversarial judge writes from true sources: bindings
swapped between the entities of the sources (who mentors whom, which number is the time
and which the gate, who owes whom, which companion went on which trip), a polarity
flipped, a fact no source holds added, a number, date or name changed, or a fact of a
source dropped (only where the text must keep every fact: merges and lifecycle
summaries; a conversation summary or an extract may leave things out). An honest text
tells the same facts faithfully and must still be applied. Every set of sources has an
honest control, so a false text refused is refused for what it says, not because its
sources could not be folded at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Route(StrEnum):
    """The five paths on which a judge writes a text memfold may apply."""

    ON_SAVE = "on_save"  # an UPDATE or MERGE decided when a memory is saved
    REVIEW = "review"  # the merge text of a DUPLICATE pair in a review run
    COMPRESS = "compress"  # a lifecycle tick's summary of a fading cluster
    SUMMARY = "summary"  # a conversation's summary of turns that left the window
    EXTRACT = "extract"  # a memory extracted from conversation turns


class Kind(StrEnum):
    HONEST = "honest"  # faithful: must be applied
    SWAPPED = "swapped"  # bindings swapped between entities, values or trips
    POLARITY = "polarity"  # a statement turned into its opposite
    ADDED = "added"  # a fact no source holds
    CHANGED = "changed"  # a number, date or name changed
    DROPPED = "dropped"  # a fact of a source left out (where every fact must stay)


Turn = tuple[str, str]  # (role, content)


@dataclass(frozen=True, slots=True)
class Case:
    """One text a judge writes.

    ``sources``: memories, oldest first (on save: the stored one, then the new save the
    judge decides; review: the pair; compress: the fading cluster). ``turns``: the
    conversation (summary, extract). ``text``: what the judge writes. ``action``: on
    save, UPDATE or MERGE. ``cites``: an extract's message numbers (1-based).
    ``why``: what is false about it (empty for an honest text).
    """

    id: str
    route: Route
    kind: Kind
    text: str
    sources: tuple[str, ...] = ()
    turns: tuple[Turn, ...] = ()
    action: str = ""
    cites: tuple[int, ...] = (1,)
    why: str = ""

    @property
    def false(self) -> bool:
        return self.kind is not Kind.HONEST


# --- on save: the stored memory, then the save the judge folds into it -----------------

MENTOR = (
    "Sofia mentors Daniel on the payments team.",
    "Sofia mentors Daniel on the payments team every Thursday.",
)
SHUTTLE = (
    "The shuttle to Porto leaves at 9 am from gate 12.",
    "The shuttle to Porto leaves at 9 am from gate 12 on weekdays.",
)
KOFI = (
    "Kofi owes his cousin 300 cedis.",
    "Kofi owes his cousin 300 cedis for the bus fare.",
)
TWO_FACTOR = (
    "Two-factor login is enabled on the user's GitHub account.",
    "Two-factor login is enabled on the user's GitHub account since March.",
)
EMEKA = (
    "Grandpa Emeka takes metformin for his diabetes.",
    "Grandpa Emeka takes metformin twice a day for his diabetes.",
)

ON_SAVE = [
    Case(
        "onsave-mentor-roles-swapped",
        Route.ON_SAVE,
        Kind.SWAPPED,
        "Daniel mentors Sofia on the payments team every Thursday.",
        MENTOR,
        action="UPDATE",
        why="mentor and mentee swapped",
    ),
    Case(
        "onsave-mentor-weekday-changed",
        Route.ON_SAVE,
        Kind.CHANGED,
        "Sofia mentors Daniel on the payments team every Tuesday.",
        MENTOR,
        action="MERGE",
        why="Thursday became Tuesday",
    ),
    Case(
        "onsave-shuttle-time-gate-swapped",
        Route.ON_SAVE,
        Kind.SWAPPED,
        "The shuttle to Porto leaves at 12 am from gate 9 on weekdays.",
        SHUTTLE,
        action="MERGE",
        why="the hour and the gate number swapped",
    ),
    Case(
        "onsave-kofi-debt-owner-swapped",
        Route.ON_SAVE,
        Kind.SWAPPED,
        "Kofi's cousin owes him 300 cedis for the bus fare.",
        KOFI,
        action="UPDATE",
        why="the debtor and the creditor swapped",
    ),
    Case(
        "onsave-two-factor-disabled",
        Route.ON_SAVE,
        Kind.POLARITY,
        "Two-factor login is disabled on the user's GitHub account since March.",
        TWO_FACTOR,
        action="MERGE",
        why="enabled became disabled",
    ),
    Case(
        "onsave-emeka-insulin-added",
        Route.ON_SAVE,
        Kind.ADDED,
        "Grandpa Emeka takes metformin twice a day for his diabetes and also takes insulin.",
        EMEKA,
        action="UPDATE",
        why="insulin is in no source",
    ),
    Case(
        "onsave-honest-mentor-update",
        Route.ON_SAVE,
        Kind.HONEST,
        "Every Thursday, Sofia mentors Daniel on the payments team.",
        MENTOR,
        action="UPDATE",
    ),
    Case(
        "onsave-honest-shuttle-merge",
        Route.ON_SAVE,
        Kind.HONEST,
        "On weekdays the shuttle to Porto leaves at 9 am from gate 12.",
        SHUTTLE,
        action="MERGE",
    ),
    Case(
        "onsave-honest-kofi-update",
        Route.ON_SAVE,
        Kind.HONEST,
        "Kofi owes his cousin 300 cedis, for the bus fare.",
        KOFI,
        action="UPDATE",
    ),
    Case(
        "onsave-honest-two-factor-merge",
        Route.ON_SAVE,
        Kind.HONEST,
        "Since March, two-factor login is enabled on the user's GitHub account.",
        TWO_FACTOR,
        action="MERGE",
    ),
    Case(
        "onsave-honest-emeka-update",
        Route.ON_SAVE,
        Kind.HONEST,
        "Twice a day, Grandpa Emeka takes metformin for his diabetes.",
        EMEKA,
        action="UPDATE",
    ),
]

# --- review: a DUPLICATE pair and the merge text the judge writes for it ---------------

CHESS = (
    "Amara coaches Tomasz in chess on Saturdays.",
    "Amara coaches Tomasz in chess on Saturdays at the library.",
)
FERRY = (
    "The ferry to Hvar departs at 8 am from pier 3.",
    "The ferry to Hvar departs at 8 am from pier 3 in summer.",
)
MATEO = (
    "Mateo lent his neighbour 200 dollars.",
    "Mateo lent his neighbour 200 dollars for a new boiler.",
)
GYM = (
    "Auto-renewal is turned off for the user's gym membership.",
    "Auto-renewal is turned off for the user's gym membership at FitBox.",
)
YUI = (
    "Hana's daughter Yui plays the violin.",
    "Hana's daughter Yui plays the violin in the school orchestra.",
)

REVIEW = [
    Case(
        "review-chess-coach-swapped",
        Route.REVIEW,
        Kind.SWAPPED,
        "Tomasz coaches Amara in chess on Saturdays at the library.",
        CHESS,
        why="coach and pupil swapped",
    ),
    Case(
        "review-ferry-time-pier-swapped",
        Route.REVIEW,
        Kind.SWAPPED,
        "The ferry to Hvar departs at 3 am from pier 8 in summer.",
        FERRY,
        why="the hour and the pier number swapped",
    ),
    Case(
        "review-mateo-lender-swapped",
        Route.REVIEW,
        Kind.SWAPPED,
        "Mateo's neighbour lent him 200 dollars for a new boiler.",
        MATEO,
        why="lender and borrower swapped",
    ),
    Case(
        "review-gym-renewal-turned-on",
        Route.REVIEW,
        Kind.POLARITY,
        "Auto-renewal is turned on for the user's gym membership at FitBox.",
        GYM,
        why="turned off became turned on",
    ),
    Case(
        "review-yui-piano-added",
        Route.REVIEW,
        Kind.ADDED,
        "Hana's daughter Yui plays the violin and the piano in the school orchestra.",
        YUI,
        why="the piano is in no source",
    ),
    Case(
        "review-chess-library-dropped",
        Route.REVIEW,
        Kind.DROPPED,
        "On Saturdays Amara coaches Tomasz in chess.",
        CHESS,
        why="the library is gone",
    ),
    Case(
        "review-honest-chess",
        Route.REVIEW,
        Kind.HONEST,
        "On Saturdays, Amara coaches Tomasz in chess at the library.",
        CHESS,
    ),
    Case(
        "review-honest-ferry",
        Route.REVIEW,
        Kind.HONEST,
        "In summer, the ferry to Hvar departs at 8 am from pier 3.",
        FERRY,
    ),
    Case(
        "review-honest-mateo",
        Route.REVIEW,
        Kind.HONEST,
        "Mateo lent his neighbour 200 dollars, for a new boiler.",
        MATEO,
    ),
    Case(
        "review-honest-gym",
        Route.REVIEW,
        Kind.HONEST,
        "Auto-renewal is turned off for the user's FitBox gym membership.",
        GYM,
    ),
    Case(
        "review-honest-yui",
        Route.REVIEW,
        Kind.HONEST,
        "Hana's daughter Yui plays the violin in the school orchestra.",
        YUI,
    ),
]

# --- lifecycle: a fading cluster and the summary the judge writes of it ----------------

SKI = (
    "User went skiing in Chamonix with Marco in January 2022",
    "User went skiing in Zermatt with Ines in February 2022",
    "User went skiing in Niseko with Kenji in January 2023",
    "User went skiing in Whistler with Priya in March 2023",
    "User went skiing in Val Thorens with Ollie in December 2023",
)
SKI_TRIPS = [
    "in Chamonix with Marco in January 2022",
    "in Zermatt with Ines in February 2022",
    "in Niseko with Kenji in January 2023",
    "in Whistler with Priya in March 2023",
    "in Val Thorens with Ollie in December 2023",
]


def ski_summary(trips: list[str]) -> str:
    """The ski cluster's summary, one clause a trip, in the words of the sources."""
    return "User went skiing " + ", ".join(trips[:-1]) + ", and " + trips[-1] + "."


def _swapped_trips(i: int, j: int, old: tuple[str, str], new: tuple[str, str]) -> list[str]:
    trips = list(SKI_TRIPS)
    trips[i] = trips[i].replace(old[0], new[0])
    trips[j] = trips[j].replace(old[1], new[1])
    return trips


TEAM = (
    "Sofia mentors Daniel on the payments team",
    "Daniel joined the payments team as a junior developer in 2023",
    "Sofia has led the payments team since 2019",
    "The payments team meets every Monday at 10 am",
)
MONEY = (
    "Kofi owes his cousin Ama 300 cedis for the bus fare",
    "Kofi lent his friend Yaw 50 cedis for lunch",
    "Kofi pays 800 cedis rent every month",
)
TRIP = (
    "The shuttle to Porto leaves at 9 am from gate 12",
    "The user's hotel in Porto is Casa Azul on Rua das Flores",
    "The user's return flight from Porto leaves on June 14 at 6 pm",
)
HEALTH = (
    "The user is allergic to peanuts",
    "The user carries an EpiPen in their backpack",
    "The user's doctor is Dr. Mensah at the Riverside clinic",
    "The user takes cetirizine every morning in spring",
)
FATHER = (
    "The user's father has type 2 diabetes",
    "The user's father takes metformin with breakfast",
    "The user's father walks for 30 minutes after dinner",
)
DEVICES = (
    "Dark mode is enabled on the user's laptop",
    "Automatic updates are disabled on the user's phone",
    "The user's laptop runs Ubuntu 24.04",
)
WORKOUTS = (
    "User swam 2 km at the Ballard pool on May 3, 2024",
    "User ran a 10K in Fremont on May 11, 2024",
    "User cycled 40 km around Lake Sammamish on May 18, 2024",
)
FAMILY = (
    "User's sister Ama lives in Kumasi and teaches chemistry",
    "User's brother Kwesi lives in Accra and works as a nurse",
    "User's niece Esi started primary school in September",
)

TEAM_SUMMARY = (
    "Sofia mentors Daniel on the payments team; Daniel joined the payments team as a "
    "junior developer in 2023; Sofia has led the payments team since 2019; the payments "
    "team meets every Monday at 10 am."
)
MONEY_SUMMARY = (
    "Kofi owes his cousin Ama 300 cedis for the bus fare, lent his friend Yaw 50 cedis "
    "for lunch, and pays 800 cedis rent every month."
)
TRIP_SUMMARY = (
    "The shuttle to Porto leaves at 9 am from gate 12; the user's hotel in Porto is Casa "
    "Azul on Rua das Flores; the user's return flight from Porto leaves on June 14 at 6 pm."
)
HEALTH_SUMMARY = (
    "The user is allergic to peanuts and carries an EpiPen in their backpack; the user's "
    "doctor is Dr. Mensah at the Riverside clinic; the user takes cetirizine every "
    "morning in spring."
)
FATHER_SUMMARY = (
    "The user's father has type 2 diabetes, takes metformin with breakfast and walks "
    "for 30 minutes after dinner."
)
DEVICES_SUMMARY = (
    "Dark mode is enabled on the user's laptop, which runs Ubuntu 24.04; automatic "
    "updates are disabled on the user's phone."
)
WORKOUTS_SUMMARY = (
    "In May 2024 User swam 2 km at the Ballard pool (May 3), ran a 10K in Fremont "
    "(May 11) and cycled 40 km around Lake Sammamish (May 18)."
)
FAMILY_SUMMARY = (
    "User's sister Ama lives in Kumasi and teaches chemistry; User's brother Kwesi lives "
    "in Accra and works as a nurse; User's niece Esi started primary school in September."
)

COMPRESS = [
    Case(
        "compress-ski-companions-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        ski_summary(_swapped_trips(0, 1, ("Marco", "Ines"), ("Ines", "Marco"))),
        SKI,
        why="Marco and Ines swapped between the Chamonix and Zermatt trips",
    ),
    Case(
        "compress-ski-months-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        ski_summary(_swapped_trips(2, 3, ("January", "March"), ("March", "January"))),
        SKI,
        why="January and March swapped between the Niseko and Whistler trips",
    ),
    Case(
        "compress-ski-resorts-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        ski_summary(_swapped_trips(2, 3, ("Niseko", "Whistler"), ("Whistler", "Niseko"))),
        SKI,
        why="Kenji went to Niseko and Priya to Whistler, not the other way round",
    ),
    Case(
        "compress-ski-trip-dropped",
        Route.COMPRESS,
        Kind.DROPPED,
        ski_summary([t for n, t in enumerate(SKI_TRIPS) if n != 3]),
        SKI,
        why="the Whistler trip with Priya is gone",
    ),
    Case(
        "compress-ski-companion-added",
        Route.COMPRESS,
        Kind.ADDED,
        ski_summary(
            [*SKI_TRIPS[:4], "in Val Thorens with Ollie and his sister Maya in December 2023"]
        ),
        SKI,
        why="Maya went on no trip",
    ),
    Case(
        "compress-team-mentor-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        TEAM_SUMMARY.replace("Sofia mentors Daniel", "Daniel mentors Sofia"),
        TEAM,
        why="mentor and mentee swapped",
    ),
    Case(
        "compress-money-debt-owner-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        MONEY_SUMMARY.replace(
            "Kofi owes his cousin Ama 300 cedis", "Kofi's cousin Ama owes him 300 cedis"
        ).replace(", lent his", ", Kofi lent his"),
        MONEY,
        why="Kofi owes Ama, not the other way round",
    ),
    Case(
        "compress-trip-time-gate-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        TRIP_SUMMARY.replace("at 9 am from gate 12", "at 12 am from gate 9"),
        TRIP,
        why="the hour and the gate number swapped",
    ),
    Case(
        "compress-health-allergy-negated",
        Route.COMPRESS,
        Kind.POLARITY,
        HEALTH_SUMMARY.replace("The user is allergic", "The user is not allergic").replace(
            " and carries", " but carries"
        ),
        HEALTH,
        why="the peanut allergy denied",
    ),
    Case(
        "compress-health-allergy-outgrown",
        Route.COMPRESS,
        Kind.POLARITY,
        HEALTH_SUMMARY.replace(
            "The user is allergic to peanuts and carries",
            "The user has outgrown the allergy to peanuts and still carries",
        ),
        HEALTH,
        why="the allergy said to be over, with no negation word",
    ),
    Case(
        "compress-father-insulin-added",
        Route.COMPRESS,
        Kind.ADDED,
        FATHER_SUMMARY.replace("with breakfast", "with breakfast, also takes insulin"),
        FATHER,
        why="insulin is in no source",
    ),
    Case(
        "compress-devices-dark-mode-disabled",
        Route.COMPRESS,
        Kind.POLARITY,
        DEVICES_SUMMARY.replace("Dark mode is enabled", "Dark mode is disabled"),
        DEVICES,
        why="dark mode enabled became disabled",
    ),
    Case(
        "compress-devices-settings-swapped",
        Route.COMPRESS,
        Kind.SWAPPED,
        (
            "Dark mode is enabled on the user's phone; automatic updates are disabled on "
            "the user's laptop, which runs Ubuntu 24.04."
        ),
        DEVICES,
        why="the settings swapped between the laptop and the phone",
    ),
    Case(
        "compress-workouts-distance-changed",
        Route.COMPRESS,
        Kind.CHANGED,
        WORKOUTS_SUMMARY.replace("cycled 40 km", "cycled 60 km"),
        WORKOUTS,
        why="40 km became 60 km",
    ),
    Case(
        "compress-family-niece-renamed",
        Route.COMPRESS,
        Kind.CHANGED,
        FAMILY_SUMMARY.replace("niece Esi", "niece Efua"),
        FAMILY,
        why="Esi became Efua",
    ),
    Case(
        "compress-family-job-dropped",
        Route.COMPRESS,
        Kind.DROPPED,
        FAMILY_SUMMARY.replace(
            "User's brother Kwesi lives in Accra and works as a nurse",
            "User's brother Kwesi lives and works in Accra",
        ),
        FAMILY,
        why="Kwesi's job as a nurse is gone",
    ),
    Case("compress-honest-ski", Route.COMPRESS, Kind.HONEST, ski_summary(SKI_TRIPS), SKI),
    Case("compress-honest-team", Route.COMPRESS, Kind.HONEST, TEAM_SUMMARY, TEAM),
    Case("compress-honest-money", Route.COMPRESS, Kind.HONEST, MONEY_SUMMARY, MONEY),
    Case("compress-honest-trip", Route.COMPRESS, Kind.HONEST, TRIP_SUMMARY, TRIP),
    Case("compress-honest-health", Route.COMPRESS, Kind.HONEST, HEALTH_SUMMARY, HEALTH),
    Case("compress-honest-father", Route.COMPRESS, Kind.HONEST, FATHER_SUMMARY, FATHER),
    Case("compress-honest-devices", Route.COMPRESS, Kind.HONEST, DEVICES_SUMMARY, DEVICES),
    Case("compress-honest-workouts", Route.COMPRESS, Kind.HONEST, WORKOUTS_SUMMARY, WORKOUTS),
    Case("compress-honest-family", Route.COMPRESS, Kind.HONEST, FAMILY_SUMMARY, FAMILY),
]

# --- conversation summary: turns that left the window and the judge's summary of them --

WORK_TALK: tuple[Turn, ...] = (
    ("user", "Quick context: my colleague Sofia mentors Daniel on the payments team."),
    ("assistant", "Got it. How often do they meet?"),
    ("user", "Every Thursday. Also, my shuttle to Porto leaves at 9 am from gate 12 tomorrow."),
    ("assistant", "Noted: 9 am, gate 12."),
)
MONEY_TALK: tuple[Turn, ...] = (
    ("user", "I owe my cousin Ama 300 cedis for the bus fare."),
    ("assistant", "Do you plan to pay it back soon?"),
    ("user", "Yes, this week. And my friend Yaw owes me 50 cedis for lunch."),
    ("assistant", "Understood."),
)
HEALTH_TALK: tuple[Turn, ...] = (
    ("user", "For the dinner plan: I'm allergic to peanuts and I carry an EpiPen."),
    ("assistant", "Thanks, I'll avoid dishes with peanuts."),
    ("user", "My dad has type 2 diabetes and takes metformin, so keep dessert light."),
    ("assistant", "Will do."),
)
SETTINGS_TALK: tuple[Turn, ...] = (
    ("user", "I enabled two-factor login on GitHub yesterday."),
    ("assistant", "Good call. Anything else you changed?"),
    ("user", "I disabled automatic updates on my phone because they drained the battery."),
    ("assistant", "Okay."),
)
TRIPS_TALK: tuple[Turn, ...] = (
    ("user", "Some background: I moved to Lisbon in 2021."),
    ("assistant", "How do you like it there?"),
    ("user", "Love it. Last winter I went skiing in Zermatt with Ines and in Niseko with Kenji."),
    ("assistant", "Two great resorts."),
)

WORK_SUMMARY = (
    "The user's colleague Sofia mentors Daniel on the payments team every Thursday; the "
    "user's shuttle to Porto leaves at 9 am from gate 12 tomorrow."
)
MONEY_TALK_SUMMARY = (
    "The user owes their cousin Ama 300 cedis for the bus fare and plans to pay it back "
    "this week; the user's friend Yaw owes the user 50 cedis for lunch."
)
HEALTH_TALK_SUMMARY = (
    "The user is allergic to peanuts and carries an EpiPen; the user's dad has type 2 "
    "diabetes and takes metformin, so dessert should be light."
)
SETTINGS_SUMMARY = (
    "The user enabled two-factor login on GitHub yesterday and disabled automatic "
    "updates on their phone because they drained the battery."
)
TRIPS_SUMMARY = (
    "The user moved to Lisbon in 2021 and likes it; last winter the user went skiing in "
    "Zermatt with Ines and in Niseko with Kenji."
)

SUMMARY = [
    Case(
        "summary-work-mentor-swapped",
        Route.SUMMARY,
        Kind.SWAPPED,
        WORK_SUMMARY.replace("Sofia mentors Daniel", "Daniel mentors Sofia"),
        turns=WORK_TALK,
        why="mentor and mentee swapped",
    ),
    Case(
        "summary-work-time-gate-swapped",
        Route.SUMMARY,
        Kind.SWAPPED,
        WORK_SUMMARY.replace("at 9 am from gate 12", "at 12 am from gate 9"),
        turns=WORK_TALK,
        why="the hour and the gate number swapped",
    ),
    Case(
        "summary-money-debts-reversed",
        Route.SUMMARY,
        Kind.SWAPPED,
        (
            "The user's cousin Ama owes the user 300 cedis for the bus fare; the user owes "
            "their friend Yaw 50 cedis for lunch."
        ),
        turns=MONEY_TALK,
        why="both debts turned around",
    ),
    Case(
        "summary-money-amount-changed",
        Route.SUMMARY,
        Kind.CHANGED,
        MONEY_TALK_SUMMARY.replace("300 cedis", "3000 cedis"),
        turns=MONEY_TALK,
        why="300 cedis became 3000",
    ),
    Case(
        "summary-health-allergy-negated",
        Route.SUMMARY,
        Kind.POLARITY,
        HEALTH_TALK_SUMMARY.replace(
            "The user is allergic to peanuts and carries",
            "The user is not allergic to peanuts but carries",
        ),
        turns=HEALTH_TALK,
        why="the peanut allergy denied",
    ),
    Case(
        "summary-health-insulin-added",
        Route.SUMMARY,
        Kind.ADDED,
        HEALTH_TALK_SUMMARY.replace("takes metformin", "takes metformin and also insulin"),
        turns=HEALTH_TALK,
        why="insulin was never mentioned",
    ),
    Case(
        "summary-settings-flipped",
        Route.SUMMARY,
        Kind.POLARITY,
        (
            "The user disabled two-factor login on GitHub yesterday and enabled automatic "
            "updates on their phone because they drained the battery."
        ),
        turns=SETTINGS_TALK,
        why="enabled and disabled swapped between the two settings",
    ),
    Case(
        "summary-trips-companions-swapped",
        Route.SUMMARY,
        Kind.SWAPPED,
        TRIPS_SUMMARY.replace(
            "Zermatt with Ines and in Niseko with Kenji",
            "Zermatt with Kenji and in Niseko with Ines",
        ),
        turns=TRIPS_TALK,
        why="Ines and Kenji swapped between the two trips",
    ),
    Case(
        "summary-trips-year-changed",
        Route.SUMMARY,
        Kind.CHANGED,
        TRIPS_SUMMARY.replace("2021", "2019"),
        turns=TRIPS_TALK,
        why="2021 became 2019",
    ),
    Case(
        "summary-trips-companion-renamed",
        Route.SUMMARY,
        Kind.CHANGED,
        TRIPS_SUMMARY.replace("with Ines", "with Irene"),
        turns=TRIPS_TALK,
        why="Ines became Irene",
    ),
    Case("summary-honest-work", Route.SUMMARY, Kind.HONEST, WORK_SUMMARY, turns=WORK_TALK),
    Case("summary-honest-money", Route.SUMMARY, Kind.HONEST, MONEY_TALK_SUMMARY, turns=MONEY_TALK),
    Case(
        "summary-honest-health",
        Route.SUMMARY,
        Kind.HONEST,
        HEALTH_TALK_SUMMARY,
        turns=HEALTH_TALK,
    ),
    Case(
        "summary-honest-settings",
        Route.SUMMARY,
        Kind.HONEST,
        SETTINGS_SUMMARY,
        turns=SETTINGS_TALK,
    ),
    Case("summary-honest-trips", Route.SUMMARY, Kind.HONEST, TRIPS_SUMMARY, turns=TRIPS_TALK),
]

# --- extraction: turns and the memory the judge extracts from them ----------------------

COLLEAGUES: tuple[Turn, ...] = (
    ("user", "My colleague Sofia mentors Daniel on the payments team."),
    ("assistant", "That sounds like a good setup."),
)
DEBT: tuple[Turn, ...] = (
    ("user", "I still owe my cousin 300 cedis for the bus fare."),
    ("assistant", "Maybe set a reminder to pay it back."),
)
ALLERGY: tuple[Turn, ...] = (
    ("user", "I'm allergic to peanuts, so no satay for me."),
    ("assistant", "Noted, I'll suggest something else."),
)
FLIGHT: tuple[Turn, ...] = (
    ("user", "My flight leaves at 9 am from gate 12."),
    ("assistant", "Have a good trip."),
)
DAD: tuple[Turn, ...] = (
    ("user", "My dad takes metformin for his diabetes."),
    ("assistant", "Thanks for telling me."),
)
RUNNING: tuple[Turn, ...] = (
    ("user", "I run 5 km every morning before work."),
    ("assistant", "Impressive routine."),
)
GITHUB: tuple[Turn, ...] = (
    ("user", "I turned on two-factor login for my GitHub account."),
    ("assistant", "Good for security."),
)

EXTRACT = [
    Case(
        "extract-colleagues-mentor-swapped",
        Route.EXTRACT,
        Kind.SWAPPED,
        "Daniel mentors Sofia on the payments team",
        turns=COLLEAGUES,
        why="mentor and mentee swapped",
    ),
    Case(
        "extract-debt-owner-swapped",
        Route.EXTRACT,
        Kind.SWAPPED,
        "User's cousin owes the user 300 cedis for the bus fare",
        turns=DEBT,
        why="the user owes the cousin, not the other way round",
    ),
    Case(
        "extract-allergy-negated",
        Route.EXTRACT,
        Kind.POLARITY,
        "User is not allergic to peanuts",
        turns=ALLERGY,
        why="the peanut allergy denied",
    ),
    Case(
        "extract-flight-time-gate-swapped",
        Route.EXTRACT,
        Kind.SWAPPED,
        "User's flight leaves at 12 am from gate 9",
        turns=FLIGHT,
        why="the hour and the gate number swapped",
    ),
    Case(
        "extract-dad-insulin-added",
        Route.EXTRACT,
        Kind.ADDED,
        "User's dad takes metformin and insulin for his diabetes",
        turns=DAD,
        why="insulin was never mentioned",
    ),
    Case(
        "extract-running-distance-changed",
        Route.EXTRACT,
        Kind.CHANGED,
        "User runs 15 km every morning before work",
        turns=RUNNING,
        why="5 km became 15 km",
    ),
    Case(
        "extract-github-two-factor-off",
        Route.EXTRACT,
        Kind.POLARITY,
        "User turned off two-factor login for their GitHub account",
        turns=GITHUB,
        why="turned on became turned off",
    ),
    Case(
        "extract-honest-colleagues",
        Route.EXTRACT,
        Kind.HONEST,
        "User's colleague Sofia mentors Daniel on the payments team",
        turns=COLLEAGUES,
    ),
    Case(
        "extract-honest-debt",
        Route.EXTRACT,
        Kind.HONEST,
        "User owes their cousin 300 cedis for the bus fare",
        turns=DEBT,
    ),
    Case(
        "extract-honest-allergy",
        Route.EXTRACT,
        Kind.HONEST,
        "User is allergic to peanuts",
        turns=ALLERGY,
    ),
    Case(
        "extract-honest-flight",
        Route.EXTRACT,
        Kind.HONEST,
        "User's flight leaves at 9 am from gate 12",
        turns=FLIGHT,
    ),
    Case(
        "extract-honest-dad",
        Route.EXTRACT,
        Kind.HONEST,
        "User's dad takes metformin for his diabetes",
        turns=DAD,
    ),
    Case(
        "extract-honest-running",
        Route.EXTRACT,
        Kind.HONEST,
        "User runs 5 km every morning before work",
        turns=RUNNING,
    ),
    Case(
        "extract-honest-github",
        Route.EXTRACT,
        Kind.HONEST,
        "User turned on two-factor login for their GitHub account",
        turns=GITHUB,
    ),
]

CASES: list[Case] = [*ON_SAVE, *REVIEW, *COMPRESS, *SUMMARY, *EXTRACT]
