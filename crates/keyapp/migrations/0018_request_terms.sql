-- The money and premises of the offer each request is about
-- (schcp_consent::offer_terms): every line of the total and the host's
-- address, in the consent language, as JSON computed from the verified claims
-- when the request is created, so the window lays them out without reading
-- them back out of the text. NULL for requests with no single offer, and for
-- requests stored before this.
ALTER TABLE requests ADD COLUMN terms TEXT;
