"""Static files of the control panel (HTML, JS, CSS), served by the control service."""
