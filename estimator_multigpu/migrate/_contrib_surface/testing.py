"""tf.contrib.testing of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "move to core, make private"
ADVICE = "tf.test"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "FakeSummaryWriter": ("none", "", ""),
    "assert_summary": ("none", "", ""),
    "latest_event_file": ("none", "", ""),
    "latest_events": ("none", "", ""),
    "latest_summaries": ("none", "", ""),
    "simple_values_from_events": ("none", "", ""),
    "to_summary_proto": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.testing.python.framework.fake_summary_writer": {
        "FakeSummaryWriter": "FakeSummaryWriter"
    },
    "tf.contrib.testing.python.framework.util_test": {
        "assert_summary": "assert_summary",
        "latest_event_file": "latest_event_file",
        "latest_events": "latest_events",
        "latest_summaries": "latest_summaries",
        "simple_values_from_events": "simple_values_from_events",
        "to_summary_proto": "to_summary_proto",
    },
}
