"""The auto-tagger: finding alias mentions, planning and applying tagging runs, suggestions."""
