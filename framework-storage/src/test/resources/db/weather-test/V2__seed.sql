INSERT INTO weather_forecast (city, summary) VALUES ('Tokyo', 'Sunny');
