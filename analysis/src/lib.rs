//! xqfarm analysis: Elo, SPRT reports and Texel tuning over the farm's Parquet data.
