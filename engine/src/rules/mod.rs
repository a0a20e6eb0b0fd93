//! Game end: checkmate, stalemate (a loss), the natural-move limit and repetition.
