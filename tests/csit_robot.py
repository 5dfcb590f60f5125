"""CSIT's ``Display Single PPS Bound`` keyword as a Robot resource, for the wording suites.

It writes a search bound the way ``performance_display.robot`` does: the
rate, the bandwidth, and per stream the latency line with its histogram.
A suite imports it with ``Resource    csit_display.resource`` and is run
with ``{..., DISPLAY_RESOURCE: DISPLAY_KEYWORDS}`` beside it.
"""

DISPLAY_RESOURCE = "csit_display.resource"

DISPLAY_KEYWORDS = """\
*** Keywords ***
Display Single PPS Bound
    [Arguments]    ${text}    ${pps}    ${gbps}    @{latency}
    Set Test Message    ${\\n}${text}: ${pps} pps,    append=yes
    Set Test Message    ${gbps} Gbps (initial)    append=yes
    IF    ${latency}
        Set Test Message    ${\\n}LATENCY [min/avg/max/hdrh] per stream: ${latency}    append=yes
    END
"""
