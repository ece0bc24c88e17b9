set(SOURCES DeviceBufferHistory.cpp JumpNormalizer.cpp RecordingPrimal.cpp ReverseExpr.cpp ReverseHost.cpp ReverseLoops.cpp ReverseMode.cpp ReverseStmt.cpp ReverseThrust.cpp ReverseValue.cpp)
