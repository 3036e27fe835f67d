// libgpiod 1.6 (Debian 12's libgpiod-dev): the v1 API (gpiod_chip_open_by_name,
// gpiod_line_request_*, gpiod_line_event_wait/read).
#include <gpiod.h>
