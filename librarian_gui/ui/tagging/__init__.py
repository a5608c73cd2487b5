"""The tagging run's review: the view and its diff."""
