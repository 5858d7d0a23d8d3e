// Version. We implement SRS 7.0's user-facing contract, so tools that check
// the major version (players, consoles) treat us as SRS 7.
#pragma once

#define SRS_VERSION_MAJOR 7
#define SRS_VERSION_MINOR 0
#define SRS_VERSION_REVISION 0
#define SRS_VERSION_STRING "7.0.0"
#define SRS_SERVER_NAME "SRS"
#define SRS_SIGNATURE SRS_SERVER_NAME "/" SRS_VERSION_STRING
