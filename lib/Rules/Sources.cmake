set(SOURCES DerivativeRules.cpp RuleLanguage.cpp)
