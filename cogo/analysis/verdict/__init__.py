"""The verdict on a network: its loss and conditions, the nearest certified optimizer, the snap (SPEC 5-7)."""
