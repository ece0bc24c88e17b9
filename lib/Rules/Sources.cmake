set(SOURCES DerivativeRules.cpp PartialProducts.cpp RuleLanguage.cpp ThrustRecipes.cpp)
