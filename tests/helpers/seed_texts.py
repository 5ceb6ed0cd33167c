"""Texts quoted from the seed documents, shared by the tests that use them."""

# Seed 004's worked example: five fading episodic memories of March 2024.
MARCH_ACTIVITIES = [
    "User went hiking at Mount Rainier on March 12, 2024",
    "User went kayaking at Lake Washington on March 15, 2024",
    "User ran a 5K in Fremont on March 20, 2024",
    "User went rock climbing at Stone Gardens on March 25, 2024",
    "User joined a cycling club on March 28, 2024",
]
