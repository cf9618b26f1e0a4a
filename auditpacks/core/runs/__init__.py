"""A run on disk: the typed run record, results files and their split layout, and the run folder's file names."""
