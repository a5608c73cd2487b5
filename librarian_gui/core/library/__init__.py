"""From dump to library (DESIGN §6, issue 31): find a note grown into a dump, propose how to
split it into daily logs and topic notes under a new index that points, and apply the split
losslessly as one journal entry that undo takes back byte for byte."""
