"""From finished runs to something people read: loading runs, figures, plots, paired comparisons, the report."""
