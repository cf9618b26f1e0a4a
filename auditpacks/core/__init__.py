"""The small core every layer uses: errors, file I/O, defaults, reasoning blocks."""
