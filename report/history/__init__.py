"""`report history`: every run of a folder as series over commits, per machine
fingerprint, torch version and profile, and the change points in them
(docs/report.md, "History")."""
