"""What the links say about concepts: the notes each is found in, the concepts sharing notes."""
