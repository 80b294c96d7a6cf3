"""Li^2 theory (SPEC 9): the energy landscape of independent feature learning, its theorems, the boundary sweep."""
