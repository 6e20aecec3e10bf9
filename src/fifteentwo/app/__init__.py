"""Front-end support shared by the plain line mode and the Textual app: sessions (human and
computer seats, saving, results history) and plain-text descriptions of events. No rules here:
everything is asked of the engine."""
