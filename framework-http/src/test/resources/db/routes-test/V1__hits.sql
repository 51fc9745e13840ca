CREATE TABLE routes_test_hits (id INTEGER PRIMARY KEY);
